"""Which project a folder belongs to, as a name that survives a rename or a second clone.

A memory saved from inside a project carries this name (the leaf header's ``project``), and a
search from inside a project ranks that project's memories and global ones first. The name is
the git remote URL, normalized (``git@github.com:me/app.git`` and
``https://github.com/me/app`` are both ``github.com/me/app``), so two clones of one repository
are one project; a work tree without a remote is named by its top folder's path; a folder
outside git is named by its own path. The home folder and the file-system root are no project
(an agent started there works globally).

Only files are read (``.git/config``), never a ``git`` subprocess: hooks call this on every
prompt and must stay fast.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .. import re_cache

GLOBAL_WORDS = frozenset({"global", "none", "-"})
MAX_NAME = 300
_SCP_LIKE = re_cache.compile(r"^(?:[\w.-]+@)?([\w.-]+):(?!//)(.+)$")


def normalize_remote(url: str) -> str:
    """``host/owner/repo`` for any spelling of a git remote URL (scheme, user, port, .git)."""
    text = url.strip()
    match = _SCP_LIKE.match(text)
    if match and "://" not in text:
        host, path = match.groups()
    else:
        text = re.sub(r"^[a-zA-Z][\w+.-]*://", "", text)
        host, _, path = text.partition("/")
        host = host.rsplit("@", 1)[-1]
        host = re.sub(r":\d+$", "", host)
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    return f"{host.lower()}/{path}".strip("/")


def _git_dir(top: Path) -> Path | None:
    """The repository folder of a work tree (``.git`` may be a file pointing elsewhere)."""
    dot = top / ".git"
    if dot.is_dir():
        return dot
    try:
        line = dot.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = Path(line[len("gitdir:") :].strip())
    gitdir = gitdir if gitdir.is_absolute() else (top / gitdir)
    try:  # a linked work tree: its config lives in the common folder
        common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
        return (gitdir / common).resolve() if not Path(common).is_absolute() else Path(common)
    except OSError:
        return gitdir


def _remote_url(git_dir: Path) -> str:
    import configparser  # only a work tree pays for it

    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string((git_dir / "config").read_text(encoding="utf-8", errors="replace"))
    except (OSError, configparser.Error):
        return ""
    remotes = [s for s in parser.sections() if s.startswith('remote "')]
    remotes.sort(key=lambda s: s != 'remote "origin"')  # origin first
    for section in remotes:
        url = parser.get(section, "url", fallback="").strip()
        if url:
            return url
    return ""


def _work_tree(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def project_of(folder: str | os.PathLike | None) -> str:
    """The project name of a folder, or "" when it is no project (home, root, missing)."""
    if not folder:
        return ""
    try:
        path = Path(os.path.realpath(os.fspath(folder)))
    except (OSError, ValueError):
        return ""
    if not path.is_dir():
        return ""
    top = _work_tree(path)
    if top is not None:
        git_dir = _git_dir(top)
        url = _remote_url(git_dir) if git_dir is not None else ""
        name = normalize_remote(url) if url else str(top)
    else:
        name = str(path)
    home = os.path.realpath(os.path.expanduser("~"))
    if name in (home, os.path.abspath(os.sep)):
        return ""
    return name[:MAX_NAME]


def project_arg(value: str | None, cwd: str | os.PathLike | None = None) -> str | None:
    """A project given by a person or an agent: a folder (``.`` is the current one), a remote
    URL, or a name as stored. None when none was given; "" for ``global``."""
    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    if text.lower() in GLOBAL_WORDS:
        return ""
    folder = Path(cwd or os.getcwd(), text).expanduser() if text.startswith(".") else None
    if folder is None and (text.startswith(("/", "~")) or os.sep in text and len(text) > 2):
        folder = Path(text).expanduser()
    if folder is not None and folder.is_dir():
        return project_of(folder) or str(folder.resolve())
    if "://" in text or _SCP_LIKE.match(text) or text.endswith(".git"):
        return normalize_remote(text)
    return text[:MAX_NAME]


def same_project(stored: str, wanted: str) -> bool:
    """A stored project name matches a wanted one exactly or by its last part
    (``--project app`` finds ``github.com/me/app``)."""
    if not stored or not wanted:
        return False
    if stored == wanted:
        return True
    return "/" not in wanted and stored.rstrip("/").rsplit("/", 1)[-1] == wanted
