#!/usr/bin/env python3
"""Run the IHMT command line from a clone, with nothing installed: python3 main.py --help"""

import sys

from ihmt.cli import main

if __name__ == "__main__":
    sys.exit(main())
