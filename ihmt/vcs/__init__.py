"""Git plumbing below the facade: running the user's ``git`` (gitcmd) and reading a store's
git history (history: what a forget cannot reach in a synced store).

It lives here, not in :mod:`ihmt.sync`, because the facade itself reads the history
(``IHMT.history_copies``) and sync, a service above the facade, opens memories through it:
with the reader inside sync the facade and sync imported each other.
"""
