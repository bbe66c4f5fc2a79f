#!/usr/bin/env python3
"""Open IHMT's local web interface from a clone: python3 gui.py [--path W] [--port N] [--no-browser]"""

from ihmt.gui.server import main

if __name__ == "__main__":
    main()
