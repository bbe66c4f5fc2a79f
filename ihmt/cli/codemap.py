"""Code projects, read from their files (not the memory): ``map`` and ``find-code``."""

from __future__ import annotations

from .context import AddCommand, workspace
from .output import Progress, emit


def register(add: AddCommand) -> None:
    p = add("map", "compact map of a code project: files and their size in tokens", cmd_map)
    p.add_argument("project", metavar="PATH", help="the project's root folder")
    p.add_argument(
        "--symbols", action="store_true", help="also list classes and functions with line ranges"
    )
    p.add_argument("--subpath", default="", help="only this folder (or file) of the project")

    p = add(
        "find-code",
        "the symbols of a code project that answer QUERY, as file:lines + code",
        cmd_find_code,
    )
    p.add_argument("query")
    p.add_argument("--project", required=True, metavar="PATH", help="the project's root folder")
    p.add_argument(
        "--scope", choices=("main", "test", "all"), default="main", help="main skips tests"
    )
    p.add_argument("--subpath", default="", help="only this folder (or file) of the project")
    p.add_argument("--clue", help="extra words that pick between AMBIGUOUS candidates")
    p.add_argument("--max-tokens", type=int, default=1500, help="size cap of the answer")


def cmd_map(args) -> int:
    from ..projects.index import ProjectIndex
    from ..projects.render import render_map

    index = ProjectIndex(args.project, workspace=workspace(args))
    try:
        pmap = index.project_map(
            "symbols" if args.symbols else "files", args.subpath, progress=Progress()
        )
    finally:
        index.close()
    emit(args, pmap.to_dict(), render_map(pmap))
    return 0


def cmd_find_code(args) -> int:
    from ..projects.index import ProjectIndex
    from ..projects.render import render_code_answer

    index = ProjectIndex(args.project, workspace=workspace(args))
    try:
        answer = index.find_code(
            args.query,
            scope=args.scope,
            subpath=args.subpath,
            clue=args.clue,
            max_tokens=args.max_tokens,
            progress=Progress(),
        )
    finally:
        index.close()
    emit(args, answer.to_dict(), render_code_answer(answer))
    return 0
