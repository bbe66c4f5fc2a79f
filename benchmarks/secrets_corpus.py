"""Credential detector on the labelled corpus in tests/secrets_corpus.py: recall and false positives.

    python benchmarks/secrets_corpus.py            # print the figures
    python benchmarks/secrets_corpus.py --write    # also update the section in RESULTS.md

Recall counts a credential as found when one finding covers its whole value; a false positive is
a look-alike with any finding at all. The corpus was written alongside the detector, so these are
figures on known cases, not on held-out text.
"""

from __future__ import annotations

import argparse
import time

from common import machine, write_section

from tests.secrets_corpus import measure  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    began = time.perf_counter()
    score = measure()
    elapsed = time.perf_counter() - began
    lines = [
        f"credentials found: {score.found}/{score.secrets} (recall {score.recall:.1%})",
        f"look-alikes flagged: {score.flagged}/{score.lookalikes} "
        f"(false-positive rate {score.false_positive_rate:.1%})",
        f"time for the whole corpus: {elapsed * 1000:.0f} ms",
    ]
    lines += [f"missed: {text!r}" for text in score.missed]
    lines += [f"false alarm: {text!r}" for text in score.false_alarms]
    print("\n".join(lines))
    if args.write:
        body = "\n".join(
            [
                f"Machine: {machine()}.",
                "",
                "| measure | result |",
                "|---|---|",
                f"| credentials found (recall) | {score.found}/{score.secrets} = "
                f"{score.recall:.1%} |",
                f"| look-alikes flagged (false positives) | {score.flagged}/{score.lookalikes} = "
                f"{score.false_positive_rate:.1%} |",
                "",
                *[f"- missed: `{text}`" for text in score.missed],
                *[f"- false alarm: `{text}`" for text in score.false_alarms],
            ]
        )
        write_section("Secrets corpus (benchmarks/secrets_corpus.py)", body)


if __name__ == "__main__":
    main()
