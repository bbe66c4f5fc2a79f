"""Projects in ranking: inside a project, its memories and global ones come first.

A leaf reference carries ``project`` when the memory was saved from inside one (absent =
global). ``project_boost`` lowers the score of another project's memory, so it still answers
when nothing closer does but never outranks an equally good memory of this project or a
global one; ``project_filter`` keeps only this project's memories and global ones.
"""

from __future__ import annotations

from collections.abc import Callable

from ..vcs.project import same_project

OTHER_PROJECT = 0.4  # score factor for a memory of another project

Boost = Callable[[dict, float], float]
Filter = Callable[[dict], bool]


def _foreign(ref: dict, project: str) -> bool:
    stored = ref.get("project") or ""
    return bool(stored) and not same_project(stored, project)


def project_boost(project: str, inner: Boost | None = None) -> Boost:
    def boost(ref: dict, score: float) -> float:
        if inner is not None:
            score = inner(ref, score)
        return score * OTHER_PROJECT if _foreign(ref, project) else score

    return boost


def project_filter(project: str, inner: Filter | None = None) -> Filter:
    def keep(ref: dict) -> bool:
        if inner is not None and not inner(ref):
            return False
        return not _foreign(ref, project)

    return keep
