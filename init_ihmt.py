#!/usr/bin/env python3
"""Create ./ihmt_memory here (or under --path W): python3 init_ihmt.py [--backend anthropic] [--force]"""

import sys

from ihmt.cli import main

if __name__ == "__main__":
    args = sys.argv[1:]
    if not any(a == "--path" or a.startswith("--path=") for a in args):
        args = ["--path", ".", *args]
    sys.exit(main(["init", *args]))
