"""Per-project code index: find_code and project_map over a cache that is never stale.

index.py     ProjectIndex: private store per project, when to sync, find_code, project_map
sync.py      carrying out a sync: drop vanished files, re-ingest changed ones (via the facade)
search.py    the code-aware searches, one judgement over both, reasons worded for code
packing.py   fitting an answer into the token budget
results.py   the dataclasses returned (ProjectSyncReport, CodeAnswer, ProjectMap, ...)
manifest.py  the sync manifest (what each file looked like at the last sync) and file kinds
ranking.py   scope / subpath filters and the code-aware boosts given to the search engine
render.py    the plain-text answers shared by the CLI and the MCP server
"""

from .index import (
    CodeAnswer,
    CodeSnippet,
    ProjectIndex,
    ProjectMap,
    ProjectSyncReport,
    default_projects_dir,
    find_code,
    project_map,
)

__all__ = [
    "CodeAnswer",
    "CodeSnippet",
    "ProjectIndex",
    "ProjectMap",
    "ProjectSyncReport",
    "default_projects_dir",
    "find_code",
    "project_map",
]
