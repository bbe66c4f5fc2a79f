"""Memory in the loop: what the agents' lifecycle hooks need from the library.

project.py     which project a folder belongs to (a name that survives a rename or a clone)
transcript.py  Claude Code and Codex session transcripts (JSONL), read from an offset
extract.py     what in a transcript a later session needs (the heuristic extractor)
capture.py     capture: transcript -> saved memories, once each, with a per-session offset
recall.py      the SessionStart brief and the per-prompt recall block
settings.py    installing IHMT's entries into the agents' hook settings, and removing them

Nothing here imports a presenter; ``ihmt/hooks`` (the presenter) reads the payload, calls
these through the facade, and prints.
"""
