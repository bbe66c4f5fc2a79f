"""Sharing the memory through git: ``sync`` (and ``sync --init`` / ``sync --status``)."""

from __future__ import annotations

from .context import AddCommand, workspace
from .output import emit


def register(add: AddCommand) -> None:
    p = add("sync", "share the memory through git: commit, pull, merge, rebuild, push", cmd_sync)
    p.add_argument("--remote", help="git remote URL or folder (stored as origin the first time)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--init", action="store_true", help="set up the repository, no network")
    mode.add_argument("--status", action="store_true", help="what is not pushed or not pulled")


def cmd_sync(args) -> int:
    from ..sync import sync

    if args.status:
        return _status(args)
    report = sync(workspace(args), args.remote, init_only=args.init)
    lines = list(report.notes)
    done = report.committed
    lines.append(f"committed: {done.words()}" if done and done.any() else "nothing new to commit")
    if args.init:
        lines.append(f"ready to sync: run `ihmt sync` ({report.leaves} memories)")
    elif not report.remote:
        lines.append("no remote yet: share it with `ihmt sync --remote URL`")
    else:
        lines.append(
            f"pulled: {report.received.words()}" if report.received else "nothing new to pull"
        )
        lines.append(
            f"pushed to {report.remote} ({report.branch})" if report.pushed else "nothing to push"
        )
        lines.append(f"in sync: {report.leaves} memories")
    emit(args, report.to_dict(), "\n".join(lines))
    return 0


def _status(args) -> int:
    from ..sync import sync_status

    st = sync_status(workspace(args))
    if not st.repository:
        lines = [f"{st.path} is not synced yet; run `ihmt sync --remote URL`"]
    else:
        lines = [
            f"store: {st.path} (branch {st.branch})",
            f"remote: {st.remote} (origin/{st.remote_branch})"
            if st.remote
            else "remote: none (add one with `ihmt sync --remote URL`)",
            f"last sync: {st.last_sync or 'never'}",
        ]
        if st.uncommitted.any():
            lines.append(f"changed since the last sync: {st.uncommitted.words()}")
        lines.append(
            f"local only: {st.local_commits} commit(s), {st.local_leaves} new memory/memories"
            " not pushed"
        )
        if st.remote:
            lines.append(
                f"remote only: {st.remote_commits} commit(s), {st.remote_leaves} new "
                "memory/memories not pulled"
                + (" (fetched just now)" if st.fetched else f" ({st.fetch_error})")
            )
    emit(args, st.to_dict(), "\n".join(lines))
    return 0
