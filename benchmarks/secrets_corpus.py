"""Credential detector on the labelled corpus in tests/secrets_corpus.py: recall and false positives.

    python benchmarks/secrets_corpus.py

RESULTS.md cites these figures in a hand-written section (it explains the one known miss), so
this script only prints them.

Recall counts a credential as found when one finding covers its whole value; a false positive is
a look-alike with any finding at all. The corpus was written alongside the detector, so these are
figures on known cases, not on held-out text.
"""

from __future__ import annotations

import time

from common import machine

from tests.secrets_corpus import measure  # noqa: E402


def main() -> None:
    began = time.perf_counter()
    score = measure()
    elapsed = time.perf_counter() - began
    print(f"machine: {machine()}")
    print(f"credentials found: {score.found}/{score.secrets} (recall {score.recall:.1%})")
    print(
        f"look-alikes flagged: {score.flagged}/{score.lookalikes} "
        f"(false-positive rate {score.false_positive_rate:.1%})"
    )
    print(f"time for the whole corpus: {elapsed * 1000:.0f} ms")
    for text in score.missed:
        print(f"missed: {text!r}")
    for text in score.false_alarms:
        print(f"false alarm: {text!r}")


if __name__ == "__main__":
    main()
