"""The agents' lifecycle hooks (a presenter): read the payload, call the facade, print.

``ihmt hooks run --agent claude|codex`` is the command the agent runs for each event; it
reads one JSON payload on stdin and always exits 0 (see run.py). The logic it calls lives in
``ihmt/loop`` through the ``IHMT`` facade.
"""
