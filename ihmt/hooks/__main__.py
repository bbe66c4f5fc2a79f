"""The hook command as the agents run it: ``python <clone>/ihmt/hooks/__main__.py hooks run
--agent NAME [--path W]`` (or ``python -m ihmt.hooks …``).

It reaches ``run.main`` without the command line's parser and command modules: the agent pays
the start-up on every prompt, so the entry imports only the hook and, through it, the facade.
``main.py hooks run`` keeps working for entries installed before.
"""

import sys
from pathlib import Path

if not __package__:  # run by its path: make this clone's package importable, not this folder
    sys.path[0] = str(Path(__file__).resolve().parents[2])

from ihmt.hooks.run import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
