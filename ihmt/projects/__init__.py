"""Per-project code index: find_code and project_map over a cache that is never stale.

index.py     ProjectIndex: private store per project, checksum sync, find_code, project_map
manifest.py  the sync manifest (what each file looked like at the last sync) and file kinds
ranking.py   scope / subpath filters and the code-aware boosts given to the search engine
render.py    the plain-text answers shared by the CLI and the MCP server
"""

from .index import (
    CodeAnswer,
    CodeSnippet,
    ProjectIndex,
    ProjectMap,
    SyncReport,
    default_projects_dir,
    find_code,
    project_map,
)

__all__ = [
    "CodeAnswer",
    "CodeSnippet",
    "ProjectIndex",
    "ProjectMap",
    "SyncReport",
    "default_projects_dir",
    "find_code",
    "project_map",
]
