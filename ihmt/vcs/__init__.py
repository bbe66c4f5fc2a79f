"""Git plumbing below the facade: running the user's ``git`` (gitcmd), reading a store's
git history (history: what a forget cannot reach in a synced store), and naming the project a
folder belongs to (project: read from ``.git/config``, used by search, the hooks and saving).

It lives here, not in :mod:`ihmt.sync`, because the facade itself reads the history
(``IHMT.history_copies``) and sync, a service above the facade, opens memories through it:
with the reader inside sync the facade and sync imported each other.
"""
