"""The hook command as the agents run it: ``python -S <clone>/ihmt/hooks/__main__.py hooks run
--agent NAME [--path W]`` (or ``python -m ihmt.hooks …``).

The agent pays the start-up on every prompt, so this entry keeps it small:

- it reaches ``run.main`` without the command line's parser and command modules;
- ``-S`` skips ``site`` (site-packages, ``.pth`` files: most of a bare interpreter's start).
  The core needs only the standard library and this clone; a store whose settings need an
  installed package (semantic search, an LLM summarizer) gets site-packages added once it
  is open (``run.site_packages_if_needed``);
- the cyclic garbage collector stays off while a read runs (imports make many objects that
  live as long as the process and would be scanned again and again: about a sixth of the
  start-up); a capture, which reads a transcript of any size, turns it back on;
- it ends the process without the interpreter's teardown once the answer is written (every
  file it wrote is already whole and synced; the store is closed by then), after keeping any
  pattern it had to assemble for the next hook (``ihmt.re_cache``: a third of the start-up).

``main.py hooks run`` and entries installed without ``-S`` keep working.
"""

import gc
import os
import sys

if not __package__:  # run by its path: make this clone's package importable, not this folder
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def start() -> None:
    gc.disable()  # see the module doc; run.run turns it back on for a capture
    from ihmt.hooks.run import main

    code = main(sys.argv[1:])
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    from ihmt import re_cache

    re_cache.persist()
    os._exit(code)


if __name__ == "__main__":
    start()
