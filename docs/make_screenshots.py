#!/usr/bin/env python3
"""Regenerate docs/screenshots/*.png (1280x800, and narrow.png at 390x844) from a real browser run.

The browser test drives every screen against the examples store; this runs it with
IHMT_SCREENSHOTS_DIR pointing here, so the pictures always show the GUI as it really is.
Needs `pip install playwright` and Debian's chromium (/usr/bin/chromium).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    env = dict(os.environ, IHMT_SCREENSHOTS_DIR=str(ROOT / "docs" / "screenshots"))
    command = [sys.executable, "-m", "pytest", "-q", str(ROOT / "tests" / "test_gui_browser.py")]
    return subprocess.call(command, cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main())
