"""Reading the memory by question: ``search`` (one walk) and ``ask`` (with the clue loop)."""

from __future__ import annotations

import sys

from ..render import hit_label
from .context import RANK_PROJECT_HELP, AddCommand, add_project_option, open_memory, project
from .output import emit, say
from .views import search_text


def register(add: AddCommand) -> None:
    p = add("search", "walk the tree", cmd_search)
    p.add_argument("query")
    p.add_argument("--top-k", type=int, default=5)
    p.add_argument("--full", action="store_true", help="ids, tree paths and excerpts")
    p.add_argument("--clue")
    add_project_option(p, RANK_PROJECT_HELP)
    p.add_argument(
        "--project-only",
        action="store_true",
        help="with --project: leave out other projects' memories",
    )

    p = add("ask", "search with the interactive clue loop", cmd_ask)
    p.add_argument("query")
    p.add_argument("--clue")
    p.add_argument("--top-k", type=int, default=5)
    add_project_option(p, RANK_PROJECT_HELP)


def cmd_search(args) -> int:
    memory = open_memory(args)
    result = memory.search(
        args.query,
        top_k=args.top_k,
        clue=args.clue,
        project=project(args),
        project_only=args.project_only,
    )
    emit(args, result.to_dict(), search_text(result, args.full))
    return 0


def cmd_ask(args) -> int:
    memory = open_memory(args)

    def prompt(result) -> str | None:
        if getattr(args, "json", False) or not sys.stdin.isatty():
            return None
        if result.reason_code in ("namesakes", "values", "rivals"):
            say(f'"{result.query}" is ambiguous: {result.reason}.')
        else:
            say(
                f'"{result.query}" is ambiguous ({len(result.candidates)} memories match this '
                f"query equally well, confidence {result.confidence:.2f})."
            )
        say("It could belong to any of these:")
        for i, hit in enumerate(result.candidates[:8], 1):
            say(f"  {i}. {hit_label(hit)} — {' '.join(hit.content.split())[:90]}…")
        say("Give me a clue to narrow it down (e.g. a place, a date, a project); empty to stop:")
        try:
            return input("> ").strip() or None
        except EOFError:
            return None

    result = memory.ask(
        args.query, clue_provider=prompt, top_k=args.top_k, clue=args.clue, project=project(args)
    )
    emit(args, result.to_dict(), search_text(result, full=False))
    return 0
