"""The agent hooks, run as the agents run them: a subprocess, a JSON payload on stdin.

Fixtures in tests/fixtures/hooks/ are shaped like the agents' real files: a Claude Code
session transcript (summary, slash-command echo, meta caveat, thinking and tool_use blocks, a
tool_result with toolUseResult, a sidechain line, a compact boundary and summary) and a Codex
rollout (session_meta, environment_context, event_msg duplicates, function calls, reasoning).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ihmt import IHMT
from ihmt.loop import settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "hooks"
SESSION = "5f2c8a4e-1b7d-4c9e-9a31-2e6f0d8b7c11"


def hook(payload, ws, agent="claude", raw: bytes | None = None) -> subprocess.CompletedProcess:
    data = raw if raw is not None else json.dumps(payload).encode("utf-8")
    cmd = settings.hook_command(agent, ws)
    return subprocess.run(
        ["sh", "-c", cmd], input=data, capture_output=True, timeout=120, cwd=str(ws.parent)
    )


@pytest.fixture
def ws(tmp_path):
    IHMT.initialize(tmp_path / "ws").close()
    return tmp_path / "ws"


def payload(event, repo, transcript=None, **extra):
    data = {
        "session_id": SESSION,
        "transcript_path": str(transcript) if transcript else None,
        "cwd": str(repo),
        "permission_mode": "default",
        "hook_event_name": event,
    }
    data.update(extra)
    return data


def context_of(run) -> str:
    assert run.returncode == 0, run.stderr
    if not run.stdout.strip():
        return ""
    out = json.loads(run.stdout)
    return out["hookSpecificOutput"]["additionalContext"]


def memories(ws):
    memory = IHMT.open(ws)
    try:
        return memory.leaves("memory")
    finally:
        memory.close()


def test_a_claude_session_is_captured_once_and_recalled(ws, repo, tmp_path):
    transcript = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / "claude_session.jsonl", transcript)
    assert context_of(hook(payload("SessionStart", repo, transcript, source="startup"), ws)) == ""
    run = hook(payload("PreCompact", repo, transcript, trigger="auto"), ws)
    assert run.returncode == 0 and run.stdout == b"", run.stderr
    saved = memories(ws)
    text = "\n".join(leaf.content for leaf in saved)
    assert "Fly.io" in text and "pytest -x" in text  # a rule the user set
    assert "round only the final total" in text  # an explanation the user accepted
    assert "PostgreSQL 17" in text  # the correction
    assert "4417" not in text and "alarm" not in text  # <private>
    assert "PostgreSQL 9" not in text  # a tool output
    assert "grep everything" not in text  # a sub-agent's line
    assert "Redis" not in text  # the compaction summary
    assert "sk-ant-api03" not in text and "[REDACTED" in text
    assert "fix the failing test" not in text  # a request for now, not a memory
    assert {leaf.project for leaf in saved} == {"github.com/acme/shop-api"}
    assert {leaf.session for leaf in saved} == {SESSION}
    # ten more compactions and the session end: nothing is saved twice
    for _ in range(10):
        hook(payload("PreCompact", repo, transcript, trigger="auto"), ws)
    hook(payload("SessionEnd", repo, transcript, reason="exit"), ws)
    assert len(memories(ws)) == len(saved)
    # a new line is captured, and only it
    with open(transcript, "a", encoding="utf-8") as f:
        line = {
            "type": "user",
            "message": {
                "role": "user",
                "content": "Our CI runs on GitHub Actions with Ubuntu 24.04.",
            },
            "timestamp": "2025-11-05T10:00:00.000Z",
            "sessionId": SESSION,
            "uuid": "u9",
        }
        f.write(json.dumps(line) + "\n")
    hook(payload("SessionEnd", repo, transcript, reason="exit"), ws)
    assert len(memories(ws)) == len(saved) + 1
    # recall: a question the memory answers gets it, dated; a chore prompt gets nothing
    ctx = context_of(
        hook(payload("UserPromptSubmit", repo, prompt="what is our staging database?"), ws)
    )
    assert "PostgreSQL 17" in ctx and "2025-11-04" in ctx and ctx.startswith("<ihmt-memory")
    for chore in ("fix this test", "run the linter and commit", "thanks!"):
        assert context_of(hook(payload("UserPromptSubmit", repo, prompt=chore), ws)) == ""
    brief = context_of(hook(payload("SessionStart", repo, transcript, source="startup"), ws))
    assert "pytest -x" in brief and "2025-11-03" in brief
    # forget --session takes it all back
    forget = subprocess.run(
        [
            sys.executable,
            str(ROOT / "main.py"),
            "--path",
            str(ws),
            "forget",
            "--session",
            SESSION,
            "--yes",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert forget.returncode == 0, forget.stderr
    assert memories(ws) == []


def test_a_codex_rollout_is_captured(ws, repo, tmp_path):
    transcript = tmp_path / "rollout.jsonl"
    shutil.copy(FIXTURES / "codex_rollout.jsonl", transcript)
    extra = {"model": "gpt-5-codex", "turn_id": "t1", "stop_hook_active": False}
    run = hook(
        payload("Stop", repo, transcript, last_assistant_message="done", **extra), ws, "codex"
    )
    assert run.returncode == 0, run.stderr
    text = "\n".join(leaf.content for leaf in memories(ws))
    assert "small commits" in text and "exponential backoff" in text
    assert "environment_context" not in text and "we use stripe" not in text
    assert "add a retry" not in text


def test_capture_can_be_switched_off_per_project_and_globally(ws, repo, tmp_path):
    transcript = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / "claude_session.jsonl", transcript)
    (repo / ".ihmt-no-capture").write_text("", encoding="utf-8")
    run = hook(payload("SessionEnd", repo, transcript, reason="exit"), ws)
    assert run.returncode == 0 and b"capture is off for this project" in run.stderr
    assert memories(ws) == []
    (repo / ".ihmt-no-capture").unlink()
    config = ws / "ihmt_memory" / "ihmt.config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    config.write_text(json.dumps({**data, "hooks_capture": False}), encoding="utf-8")
    run = hook(payload("SessionEnd", repo, transcript, reason="exit"), ws)
    assert b"hooks_capture is false" in run.stderr and memories(ws) == []


@pytest.mark.parametrize(
    "raw, why",
    [
        (b"{not json", b"not valid JSON"),
        (b"[1, 2]", b"not a JSON object"),
        (b"\xff\xfe", b"not valid JSON"),
        (json.dumps({"hook_event_name": "Teleport", "cwd": "/"}).encode(), b"unknown event"),
    ],
)
def test_bad_payloads_exit_0_with_one_line(ws, raw, why):
    run = hook(None, ws, raw=raw)
    assert run.returncode == 0 and run.stdout == b""
    assert why in run.stderr and run.stderr.count(b"\n") == 1


def test_missing_half_written_and_huge_transcripts(ws, repo, tmp_path):
    run = hook(payload("PreCompact", repo, tmp_path / "nope.jsonl"), ws)
    assert run.returncode == 0 and b"No such file" in run.stderr
    half = tmp_path / "half.jsonl"
    good = json.dumps(
        {
            "type": "user",
            "message": {"role": "user", "content": "We host the docs on Netlify today."},
        }
    )
    half.write_text(good + "\n" + good[:30], encoding="utf-8")  # the agent is mid-write
    assert hook(payload("PreCompact", repo, half), ws).returncode == 0
    assert len(memories(ws)) == 1
    with open(half, "a", encoding="utf-8") as f:  # the line is finished later
        f.write(good[30:].replace("Netlify", "Vercel") + "\n")
    hook(payload("SessionEnd", repo, half), ws)
    # the half line was left for later; once complete, it is read whole (not from its middle)
    assert any("Vercel" in leaf.content for leaf in memories(ws))
    huge = tmp_path / "huge.jsonl"
    with open(huge, "wb") as f:
        f.truncate(200 * 1024 * 1024)  # 200 MB of one endless line (a file dump)
        f.seek(0, os.SEEK_END)
        f.write(
            b"\n"
            + json.dumps(
                {
                    "type": "user",
                    "message": {"role": "user", "content": "Our office moved to Lyon in March."},
                }
            ).encode()
            + b"\n"
        )
    run = hook(payload("SessionEnd", repo, huge, session_id="huge"), ws)
    assert run.returncode == 0 and b"skipped" in run.stderr
    assert any("Lyon" in leaf.content for leaf in memories(ws))


def test_no_store_and_a_read_only_store(tmp_path, repo):
    run = hook(
        payload("UserPromptSubmit", repo, prompt="what is our staging db"), tmp_path / "none"
    )
    assert run.returncode == 0 and run.stdout == b"" and run.stderr.count(b"\n") == 1
    ws = tmp_path / "ro"
    IHMT.initialize(ws).close()
    transcript = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / "claude_session.jsonl", transcript)
    if os.geteuid() == 0:
        pytest.skip("root writes through read-only permissions")
    store = ws / "ihmt_memory"
    paths = [store, *store.rglob("*")]
    for p in paths:
        p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        run = hook(payload("PreCompact", repo, transcript), ws)
        assert run.returncode == 0 and run.stdout == b""
        assert b"read-only" in run.stderr or b"nothing" in run.stderr
    finally:
        for p in paths:
            p.chmod(p.stat().st_mode | stat.S_IWUSR)


# -- install / uninstall -----------------------------------------------------------------------


OTHERS = (
    '{\n    "model": "opus",\n    "hooks": {\n        "PreToolUse": [{"matcher": "Bash", "hooks": '
    '[{"type": "command", "command": "lint.sh"}]}],\n        "SessionStart": [{"hooks": '
    '[{"type": "command", "command": "echo hello"}]}]\n    }\n}'
)


@pytest.mark.parametrize("agent", ["claude", "codex"])
@pytest.mark.parametrize("before", [None, OTHERS, "{}"])
def test_install_then_uninstall_is_byte_identical(agent, before, isolated_home, tmp_path):
    path = settings.settings_path(agent, "user")
    if before is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(before.encode("utf-8"))
    first = settings.install(agent, "user", workspace=tmp_path / "ws")
    assert first.action == "installed"
    written = path.read_bytes()
    data = json.loads(written)
    assert set(settings.EVENTS[agent]) <= set(data["hooks"])
    if before == OTHERS:  # everyone else's hooks are still there
        assert (
            data["model"] == "opus"
            and data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "lint.sh"
        )
        assert data["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "echo hello"
        assert path.with_name(path.name + ".ihmt-backup").read_bytes() == before.encode()
    again = settings.install(agent, "user", workspace=tmp_path / "ws")
    assert again.action == "already installed" and path.read_bytes() == written
    gone = settings.uninstall(agent, "user")
    assert gone.action == "restored"
    if before is None:  # the file and the folder install created are gone again
        assert not path.exists() and not path.parent.exists()
    else:
        assert path.read_bytes() == before.encode("utf-8")
        assert [p.name for p in path.parent.iterdir()] == [path.name]
    assert settings.uninstall(agent, "user").action == "not installed"


def test_uninstall_after_someone_else_edited_keeps_their_edit(isolated_home, tmp_path):
    path = settings.settings_path("claude", "user")
    path.parent.mkdir(parents=True)
    path.write_text(OTHERS, encoding="utf-8")
    settings.install("claude", "user", workspace=tmp_path / "ws")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["theme"] = "dark"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert settings.uninstall("claude", "user").action == "removed"
    after = json.loads(path.read_text(encoding="utf-8"))
    assert after["theme"] == "dark" and after["model"] == "opus"
    assert after["hooks"] == json.loads(OTHERS)["hooks"]


def test_a_broken_settings_file_is_left_alone(isolated_home, tmp_path):
    path = settings.settings_path("claude", "user")
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": [', encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "hooks", "install", "--agent", "claude"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(isolated_home)},
    )
    assert run.returncode == 1 and "not valid JSON" in run.stderr
    assert path.read_text(encoding="utf-8") == '{"hooks": ['


def test_project_scope_and_status(isolated_home, repo, tmp_path):
    change = settings.install("codex", "project", workspace=tmp_path / "ws", cwd=repo / ".git")
    assert change.path == str(repo / ".codex" / "hooks.json")
    rows = {(c.agent, c.scope): c for c in settings.status(cwd=repo)}
    assert rows[("codex", "project")].action == "installed"
    assert rows[("claude", "user")].action == "not installed"
    settings.uninstall("codex", "project", cwd=repo)
    assert not (repo / ".codex").exists()


# --- what capture keeps and what recall says, tuned on benchmarks/hooks.py (issue 19) ---


def _user(text: str):
    from ihmt.loop.transcript import Turn

    return Turn("user", text, "2023-05-08T13:56:00Z")


def test_a_speaker_label_stays_on_what_is_kept():
    from ihmt.loop.extract import extract

    (item,) = extract([_user("Caroline: Hey Mel! I went to a LGBTQ support group yesterday.")])
    assert item.text == "Caroline: I went to a LGBTQ support group yesterday."
    assert item.timestamp == "2023-05-08T13:56:00Z"  # dated by the message, not the capture
    (fix,) = extract([_user("Correction: the staging port is 8080 now.")])
    assert fix.correction and fix.text.startswith("Correction:")  # a cue, not a speaker


def test_chit_chat_about_the_listener_is_not_saved_but_plain_statements_are():
    from ihmt.loop.extract import extract

    for chat in (
        "You'd be a great counselor!",
        "Your energy will be so contagious!",
        "Wow, combining your two interests into a store is super cool.",
    ):
        assert extract([_user(chat)]) == [], chat
    (mine,) = extract([_user("Your idea works, so I switched our CI to it.")])
    assert "switched our CI" in mine.text  # the speaker's own news is kept
    (item,) = extract([_user("The store's doing great since the new sign went up.")])
    assert "store's doing great" in item.text


def test_prompt_names_skip_question_words_dates_and_a_capitalised_first_word():
    from ihmt.loop.recall import prompt_names

    assert prompt_names("Fix the failing test in utils") == []
    assert prompt_names("What did Jon's store sell in August 2023?") == ["Jon"]
    assert prompt_names("Is Oscar Melanie's pet?") == ["Oscar", "Melanie"]
    assert prompt_names("Caroline's bowl: who made it?") == ["Caroline"]
    # every sentence's first word, not only the prompt's, and Spanish question words,
    # articles and pronouns
    assert prompt_names("Which base image do we use? Someone wants alpine.") == []
    assert prompt_names("¿Cómo se llamaba la supervisora? Le quiero enseñar el panel.") == []
    assert prompt_names("Los floats de La Muela salen mal. ¿Qué orden usamos?") == ["Muela"]
    assert prompt_names("Tests pass. Did Melanie sign off?") == ["Melanie"]


@pytest.fixture
def people(ws):
    memory = IHMT.open(ws)
    for text, when in (
        ("Caroline: I went to a pottery class last Saturday and made a blue bowl.", "2023-07-03"),
        ("Caroline: My mentor helps me with the adoption paperwork.", "2023-06-27"),
        ("Melanie: I painted a sunrise over the lake with my kids.", "2023-05-08"),
        ("Melanie: We camped in the mountains and roasted marshmallows.", "2023-06-10"),
    ):
        memory.save(text, timestamp=when)
    yield memory
    memory.close()


def test_a_named_question_recalls_that_persons_memory_dated(people):
    ctx = people.prompt_recall("When did Caroline go to the pottery class?")
    assert "pottery class" in ctx and "2023-07-03" in ctx and "sunrise" not in ctx
    assert "2023-05-08" in people.prompt_recall("When did Melanie paint a sunrise?")


def test_a_question_about_the_wrong_person_recalls_nothing(people):
    # the pottery class and the mentor are Caroline's, the camping Melanie's: a block about
    # them would mislead an agent asked about the other one (the search alone finds them)
    assert (
        "pottery"
        in people.search("What blue bowl did Melanie make at the pottery class?").best.content
    )
    for wrong in (
        "What blue bowl did Melanie make at the pottery class?",
        "Who helps Melanie with the adoption paperwork?",
        "Where did Caroline camp in the mountains?",
        "When did Melanie go to Barcelona?",  # never mentioned at all
    ):
        assert people.prompt_recall(wrong) == "", wrong


def test_coding_prompts_and_acknowledgements_recall_nothing(ws):
    memory = IHMT.open(ws)
    try:
        memory.save("Yes, do it with the Makefile target deploy-staging.")
        for prompt in ("yes do it", "yes, do it", "fix this test"):
            assert memory.prompt_recall(prompt) == "", prompt
    finally:
        memory.close()


def test_the_installed_hook_command_skips_the_command_line(ws, repo):
    """Every prompt pays the hook's start-up: the entry must not load the CLI's modules."""
    cmd = settings.hook_command("claude", ws)
    assert "main.py" not in cmd and settings.MARK in cmd  # uninstall still finds it
    data = json.dumps(payload("UserPromptSubmit", repo, prompt="what is our staging database?"))
    run = subprocess.run(
        ["sh", "-c", cmd],
        input=data.encode(),
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"},
    )
    assert run.returncode == 0
    imported = run.stderr.decode("utf-8", "replace")
    assert "ihmt.hooks.run" in imported and "ihmt.api" in imported
    assert "ihmt.cli" not in imported and "argparse" not in imported


def test_once_one_memory_answers_others_about_the_name_holding_some_words_come_along(people):
    people.save("Caroline: The pottery teacher showed me how to glaze.", timestamp="2023-07-10")
    ctx = people.prompt_recall("When did Caroline go to the pottery class?")
    assert "made a blue bowl" in ctx  # holds "pottery" and "class": it qualifies the prompt
    assert "how to glaze" in ctx  # holds only "pottery": alone it would not, as a companion yes
    assert "adoption paperwork" not in ctx  # about Caroline but holds none of the words


def test_a_named_prompt_also_gets_the_best_memory_by_its_other_words(ws):
    """ "Heroku" is a product, not the person who signs off: the memory about it qualifies, and
    the memory naming who holds the answer comes along because it holds the prompt's words."""
    from ihmt.loop.recall import prompt_recall

    memory = IHMT.open(ws)
    try:
        for text in (
            "The staging app runs on Heroku: one web dyno and one worker dyno.",
            "Paid Heroku add-ons need a sign-off before anyone adds one.",
            "Gordon Pike gives the sign-off on anything we pay for.",
            "The team prefers small pull requests, under 400 lines.",
            "Deploys to production happen on Tuesdays and Thursdays.",
            "The nightly backup of the orders database runs at 02:00 UTC.",
        ):
            memory.save(text)
        block = prompt_recall(memory, "who signs off if I want to add a paid Heroku add-on?")
    finally:
        memory.close()
    assert "Paid Heroku add-ons" in block and "Gordon Pike" in block
    assert "pull requests" not in block


def test_a_named_prompt_brings_up_to_ten_memories_about_the_name(people):
    """The answer is often not the best match among memories about one name: the block
    holds the first ten of them that hold some of the prompt's words, within its budget."""
    from ihmt.loop.recall import PROMPT_TOKENS
    from ihmt.text.tokens import estimate_tokens

    for day in range(1, 10):
        people.save(f"Caroline: Pottery class number {day} was fun.", timestamp=f"2023-08-0{day}")
    for day in range(10, 26):  # others' memories keep "pottery" a rare word
        people.save(f"Melanie: Swim lesson number {day} with the kids.", timestamp=f"2023-08-{day}")
    ctx = people.prompt_recall("When did Caroline go to the pottery class?")
    about = [line for line in ctx.splitlines() if line.startswith("- ")]
    assert len(about) == 10 and all("Caroline" in line for line in about), ctx
    assert "made a blue bowl" in ctx  # the tenth of them
    assert estimate_tokens(ctx) <= PROMPT_TOKENS


def test_rare_words_decide_who_a_question_is_about(people):
    """Melanie's memory holds "kids" and "lake", words many memories hold; only Caroline's
    holds "charity race". Counted word by word both hold two of the question's words; weighed
    by rarity the question is about Caroline's race, so Melanie gets no block."""
    for text, when in (
        ("Caroline: I ran the charity race downtown for mental health.", "2023-05-20"),
        ("Melanie: I took the kids to the lake on Sunday.", "2023-06-01"),
        ("Caroline: The kids at the shelter loved the lake trip.", "2023-06-05"),
        ("Melanie: My kids swim in the lake every summer.", "2023-06-20"),
    ):
        people.save(text, timestamp=when)
    assert people.prompt_recall("Did Melanie take her kids to the lake for the charity race?") == ""
    assert "charity race" in people.prompt_recall(
        "Did Caroline take her kids to the lake for the charity race?"
    )


def _agent(text: str):
    from ihmt.loop.transcript import Turn

    return Turn("assistant", text, "2023-05-08T13:57:00Z")


def test_an_answer_keeps_the_question_it_answers():
    from ihmt.loop.extract import extract
    from ihmt.text.reply import own_words, without_question

    (item,) = extract(
        [
            _agent("The session store needs a cache. Should it be Redis or Memcached?"),
            _user("We already run Redis on cache-01, it holds the sessions."),
        ]
    )
    # "it" is the session store, which only the sentence before the question names
    assert item.text.endswith(
        '(in reply to: "The session store needs a cache. Should it be Redis or Memcached?")'
    )
    assert without_question(item.text) == "We already run Redis on cache-01, it holds the sessions."
    assert own_words(item.text) == item.text  # the agent's question is what the answer is about
    # a conversation replayed to the agent: the other speaker asked, the agent only noted it
    (reply,) = extract(
        [
            _user("Melanie: That sounds fun! What did you paint there?"),
            _agent("Noted."),
            _user("Caroline: I painted a sunrise over the lake last week."),
        ]
    )
    assert reply.text == (
        "Caroline: I painted a sunrise over the lake last week. (in reply to Melanie: "
        '"What did you paint there?")'
    )
    assert own_words(reply.text) == "Caroline: I painted a sunrise over the lake last week."


def test_no_question_is_kept_from_oneself_or_from_early_in_a_long_reply():
    from ihmt.loop.extract import extract

    own = extract(
        [
            _user("Caroline: Where should I hang it? I painted a sunrise over the lake."),
            _agent("Noted."),
            _user("Caroline: I hung the painting in the hallway of my flat."),
        ]
    )
    assert [i.text for i in own][-1] == "Caroline: I hung the painting in the hallway of my flat."
    answered = extract(
        [
            _agent("Why did the build fail? The cache was stale. I cleared it. All green now."),
            _user("Good, we always clear the cache before a release."),
        ]
    )
    assert answered[0].text == "Good, we always clear the cache before a release."


def test_a_captured_answer_is_found_by_the_question_it_answers(ws, repo, tmp_path):
    transcript = tmp_path / "answer.jsonl"
    asked = "Which cache should the sessions use, Redis or Memcached?"
    lines = []
    for n, (role, text) in enumerate(
        [("user", "Let's set up the session store."), ("assistant", asked)]
        + [("user", "We already run Redis on cache-01 for that.")]
    ):
        line = {"type": role, "message": {"role": role, "content": text}, "uuid": f"a{n}"}
        line.update({"timestamp": "2025-11-05T10:00:00.000Z", "sessionId": SESSION})
        lines.append(json.dumps(line))
    transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = hook(payload("SessionEnd", repo, transcript, reason="exit"), ws)
    assert run.returncode == 0, run.stderr
    memory = IHMT.open(ws)
    try:
        best = memory.search("which cache do the sessions use?").best
        assert best is not None and "Redis on cache-01" in best.content
    finally:
        memory.close()


def test_words_only_in_the_question_an_answer_keeps_do_not_make_it_about_the_prompt(people):
    """Caroline went to the gala and asked Melanie about it: Melanie's answer keeps the
    question, which names the gala, but the gala is not Melanie's. Asked when Melanie went
    to the gala, the block stays empty."""
    from ihmt.text.reply import with_question

    answer = "Melanie: Never, but I would love to see one sometime."
    people.save(
        with_question(answer, "I went to the charity gala last night, have you been?", "Caroline"),
        timestamp="2023-07-20",
    )
    assert "charity gala" in people.search("When did Melanie go to the charity gala?").best.content
    assert people.prompt_recall("When did Melanie go to the charity gala?") == ""


def test_sentences_end_before_a_lower_case_start_but_not_after_an_abbreviation():
    from ihmt.loop.extract import sentences

    assert sentences("fine. can you deploy it? use e.g. the blue one vs. the red one") == [
        "fine.",
        "can you deploy it?",
        "use e.g. the blue one vs. the red one",
    ]


def test_a_short_reply_to_the_agents_question_is_kept_with_its_context():
    from ihmt.loop.extract import extract

    (branch,) = extract(
        [_agent("Will do. Which git branch should deploy to staging?"), _user("develop")]
    )
    assert branch.text == 'develop (in reply to: "Which git branch should deploy to staging?")'
    (env,) = extract(
        [
            _agent("Do you want the environment managed with conda or uv?"),
            _user("uv, not conda. conda broke the box last year"),
        ]
    )
    assert env.text.startswith("uv, not conda. conda broke the box last year (in reply to:")
    for chatter in ("ok", "thanks!", "Hey Mel!", "can you run it again?", "nah thats it"):
        assert extract([_agent("Should I deploy it now?"), _user(chatter)]) == [], chatter
    assert extract([_user("develop")]) == []  # no question: a bare word says nothing


def test_a_reply_worded_as_a_command_answers_the_agents_question():
    """ "delete it, unless --keep-failed-snapshots" is how a user answers "delete it, or leave
    it for debugging?": the first sentence is the answer, though it reads as a request."""
    from ihmt.loop.extract import extract

    (kept,) = extract(
        [
            _agent("What should happen to the snapshot when it fails: delete it, or keep it?"),
            _user("delete it, unless --keep-failed-snapshots is set"),
        ]
    )
    assert kept.text.startswith("delete it, unless --keep-failed-snapshots is set (in reply to:")
    # unasked, the same words are a request for now, not a fact to keep
    assert extract([_user("delete it, unless --keep-failed-snapshots is set")]) == []


def test_acronyms_and_identifiers_are_not_names():
    from ihmt.loop.recall import prompt_names

    assert prompt_names("CI failed on my PR title, what format does it want?") == []
    assert prompt_names("the CarrierEvent classes are missing a field") == []
    assert prompt_names("What LGBTQ+ events has Caroline been to?") == ["Caroline"]
    assert prompt_names("Did Jean-Luc meet O'Neil?") == ["Jean-Luc", "O'Neil"]


def test_a_question_about_the_setup_gets_memories_a_request_with_its_words_does_not(ws):
    memory = IHMT.open(ws)
    try:
        for text in (
            "The staging database runs PostgreSQL 16 on db-stg-01 since the March upgrade.",
            "Releases go out on Tuesdays after the standup.",
            "Pagination on list endpoints is keyset, 50 a page.",
        ):
            memory.save(text)
        question = "which postgres does the staging database run on these days, for the new script?"
        result = memory.search(question)
        assert 0.25 <= result.best.coverage < 0.5  # below the old gate, above the new one
        assert "db-stg-01" in memory.prompt_recall(question)
        assert memory.prompt_recall("move the staging database to postgres 17") == ""
    finally:
        memory.close()


def test_a_version_given_as_a_reply_answers_a_version_question(ws):
    from ihmt.text.reply import with_question

    memory = IHMT.open(ws)
    try:
        memory.save(with_question("3.12, all services moved in January", "Which Python version?"))
        memory.save("The docs site builds with mkdocs from the docs folder.")
        result = memory.search("which python version do we target?")
        assert not result.not_found and result.best.content.startswith("3.12")
    finally:
        memory.close()


def test_a_prompt_whose_context_drowns_its_question_is_asked_again_by_the_question(ws):
    from ihmt.loop.recall import question_clause
    from ihmt.text.reply import with_question

    memory = IHMT.open(ws)
    try:
        asked = "Which CUDA toolkit should the build target?"
        memory.save(with_question("12.4, same as the driver on the box", asked))
        memory.save("The gpu box is shared with the vision team; book long training runs first.")
        memory.save("Training data lives in the feature store, refreshed nightly at 02:00.")
        memory.save("We install python packages with uv on every machine, not conda.")
        prompt = (
            "installing torch on the gpu box for a new training experiment with the vision "
            "data, which cuda toolkit should it be built against?"
        )
        assert memory.search(prompt).confidence < 0.3  # the whole prompt: no block
        assert question_clause(prompt) == "which cuda toolkit should it be built against?"
        assert "12.4, same as the driver" in memory.prompt_recall(prompt)
        # a closing request is no question to ask memory, nor one with a single word in it
        assert question_clause("the build is failing on CI, can you look at it?") == ""
        assert question_clause("this test panics on windows, what's going on") == ""
        # nor one whose words are all about doing the work
        vet = "go vet flags my Limiter struct, what does that mean and how do i fix it"
        assert question_clause(vet) == ""
    finally:
        memory.close()


def test_a_question_in_spanish_or_before_its_context_is_asked_again_alone(ws):
    from ihmt.loop.recall import leading_question, question_clause

    memory = IHMT.open(ws)
    try:
        memory.save(
            "Actualicé el droplet el fin de semana: ahora corre Postgres 16 con PostGIS 3.4."
        )
        memory.save("El backend compila con JDK 21 (Temurin) y Gradle con Kotlin DSL.")
        memory.save("Los GPX crudos de los voluntarios van en data/raw/ y nunca se commitean.")
        memory.save("La app Android usa MapLibre con tiles vectoriales.")
        # the context names pg_dump, which no memory mentions: the whole prompt is turned away
        prompt = "¿qué versión de Postgres tiene producción? necesito saber para un pg_dump"
        whole = memory.search(prompt)
        assert whole.not_found and whole.reason_code == "unknown_name"
        assert question_clause(prompt, wider=True) == ""  # it comes first, not last
        question = "¿qué versión de Postgres tiene producción?"
        assert leading_question(prompt, ["pg_dump"]) == question
        assert "Postgres 16" in memory.prompt_recall(prompt)
        # a question naming the unknown thing itself, or context naming nothing unknown
        assert (
            leading_question("which pg_dump flags do we use? it's for the backup", ["pg_dump"])
            == ""
        )
        assert leading_question(prompt, []) == ""
        # a Spanish question after its context
        context_first = (
            "voy a configurar un servidor de integración continua nuevo con Ubuntu y un runner "
            "propio, ¿qué JDK necesita el backend?"
        )
        assert question_clause(context_first) == ""  # the gate's reading is unchanged
        assert question_clause(context_first, wider=True) == "¿qué JDK necesita el backend?"
        assert "JDK 21" in memory.prompt_recall(context_first)
        # a question followed by another question, or a clause that only looks like one
        assert leading_question("which port? and which host? it's for grpcurl", ["grpcurl"]) == ""
        assert question_clause("ok. que lo ponga el CI con el número de run", wider=True) == ""
    finally:
        memory.close()


def test_the_session_brief_lists_the_users_answers_to_the_agent_newest_first(ws):
    from ihmt.text.reply import with_question

    memory = IHMT.open(ws)
    try:
        memory.save(
            with_question("staging-2", "Which env should debug builds hit?"), timestamp="2026-02-01"
        )
        memory.save(
            with_question("develop", "Which branch deploys to staging?"), timestamp="2026-02-03"
        )
        memory.save(
            with_question("Caroline: the lake, with my kids", "Where did you paint?", "Melanie"),
            timestamp="2026-02-04",
        )
        memory.save(
            "Correction: debug builds hit stage-eu now, not staging-2.",
            replaces=with_question("staging-2", "Which env should debug builds hit?"),
            timestamp="2026-02-05",
        )
        brief = memory.session_brief()
        answers = brief.split("Answers the user gave the agent (question, then answer):")[1]
        assert "2026-02-03: Which branch deploys to staging? develop" in answers
        assert "staging-2" not in answers  # corrected since
        assert "the lake" not in answers  # another person's question, not the agent's
        assert "stage-eu" in brief  # the correction itself is listed with the corrections
    finally:
        memory.close()


def test_statements_a_developer_types_are_kept_without_a_known_verb():
    from ihmt.loop.extract import durable_sentence

    # a specific name (host, file, channel) makes a fact of a sentence with no listed verb
    assert (
        durable_sentence("Aisha owns the validation endpoints on fare-gateway now") == "statement"
    )
    assert durable_sentence("any config change goes in sdkconfig.defaults") == "statement"
    # a request verb followed by "should" is the subject, not an order
    assert durable_sentence("debug should point at stage-eu now") == "statement"
    assert durable_sentence("debug the failing login test on stage-eu") == ""
    assert durable_sentence("rule: OTA releases only go out on Tuesdays or Wednesdays") == "rule"
    assert durable_sentence("the meeting went long and we all left tired") == "statement"
    assert durable_sentence("nice work on that one mate") == ""


def test_where_things_go_said_of_a_plural_subject_is_kept():
    from ihmt.loop.extract import durable_sentence

    # "they go to", "alerts point to": where things are sent now, as "it goes to" is
    said = "They go to the Synology in the back office now, over Tailscale."
    assert durable_sentence(said) == "statement"
    assert durable_sentence("The invoices point to the old bucket.") == "statement"
    # an order to go somewhere is no fact
    assert durable_sentence("Go to the settings page and click save.") == ""


def test_a_role_a_three_word_rule_and_a_fact_after_an_aside_are_kept():
    from ihmt.loop.extract import durable_sentence

    # who does what, with no name of a host or a file in it
    assert durable_sentence("Priya Raman in security owns the access reviews now.") == "statement"
    # a rule in three words; "never mind that" is no rule
    assert durable_sentence("No Firebase, ever.") == "rule"
    assert durable_sentence("Never mind that.") == ""
    # an aside to the agent before the fact does not make the fact a remark about the agent
    aside = "While you're in there: the HL7 engine listens on port 6661, the lab can't reach it."
    assert durable_sentence(aside) == "statement"
    assert durable_sentence("While you're at it, you could rename the module.") == ""


def test_a_fact_with_an_offer_to_the_agent_in_it_is_kept():
    """ "If you need to check something there" is said to the agent, around a fact a later
    session needs; an offer around nothing specific stays a remark to the listener."""
    from ihmt.loop.extract import durable_sentence

    staging = (
        "btw staging is a separate CX22 at staging.greenfieldvets.co.uk if you need to check "
        "something there, same compose setup"
    )
    assert durable_sentence(staging) == "statement"
    assert durable_sentence("The report is at /srv/reports/q3.pdf in case you want it.")
    assert durable_sentence("You'd love the lake if you went there in June.") == ""
    assert durable_sentence("You should try pottery if you ever get the time.") == ""


def test_a_reply_picking_one_of_the_agents_options_is_kept_with_that_option():
    from ihmt.loop.extract import extract

    offer = _agent(
        "Two options:  A) Retry with backoff in a repository coroutine: simple, but lost when "
        "the process dies. B) A WorkManager request with a network constraint: survives it."
    )
    (pick,) = extract([offer, _user("B.")])
    assert pick.kind == "decision"
    assert (
        pick.text
        == 'B. (option B: "A WorkManager request with a network constraint: survives it.")'
    )
    (named,) = extract([offer, _user("workmanager yeah")])
    assert "(option B:" in named.text  # a word only option B holds
    # no options laid out, or a reply that picks none: nothing made up
    assert extract([_agent("Done, the tests pass now."), _user("B.")]) == []
    assert extract([offer, _user("A lot happened today")]) == []


def _hit(leaf_id: str, content: str, score: float, coverage: float, matched: list[str]):
    from ihmt.models import Hit

    return Hit(
        leaf_id=leaf_id,
        score=score,
        content=content,
        path=[leaf_id],
        timestamp="2026-03-02T09:00:00",
        source="memory",
        domain="GENERIC",
        matched_terms=matched,
        coverage=coverage,
    )


class _ScriptedMemory:
    """A memory whose search returns prepared results, so that the per-prompt gate is
    tested on exactly the confidence and coverage it decides on."""

    def __init__(self, results: dict):
        self.results = results
        self.asked: list[str] = []

    def search(self, text, top_k=10, project=None):
        self.asked.append(text)
        return self.results[text]

    def term_weights(self, text, min_df=0):
        return {}  # every word weighs the same

    def unknown_terms(self, text):
        return set()


def _result(text: str, hits: list, confidence: float, not_found: bool = False):
    from ihmt.models import SearchResult

    return SearchResult(
        query=text, clue=None, hits=hits, confidence=confidence, not_found=not_found
    )


def test_a_memory_the_model_vouches_for_answers_a_question_in_other_words():
    """With the semantic extra, a question that shares few words with its answer passes the
    gate when the model vouches for that memory by meaning; the words alone would not, and a
    request for work still needs its strict share of words."""
    from ihmt.loop.recall import prompt_recall

    reply = _hit(
        "m1", '3 days (in reply to: "What\'s the lookback for late POS data?")', 2.0, 0.1, ["day"]
    )
    reply.matched_terms = ["night", "run"]
    question = "how far back does the nightly sales run reprocess late transactions?"
    request = "make the nightly sales run reprocess late transactions"
    vouched = _result(question, [reply], 0.45)
    vouched.meaning_answers = ["m1"]
    asked = _result(request, [reply], 0.45)
    asked.meaning_answers = ["m1"]
    memory = _ScriptedMemory({question: vouched, request: asked})
    assert "3 days" in prompt_recall(memory, question)
    assert prompt_recall(memory, request) == ""
    vouched.meaning_answers = []  # words alone: a tenth of the question is too little
    assert prompt_recall(memory, question) == ""
    # one shared word is a stray match unless the cosine answers on its own
    reply.matched_terms = ["night"]
    vouched.meaning_answers = ["m1"]
    assert prompt_recall(memory, question) == ""
    vouched.meaning_alone = ["m1"]
    assert "3 days" in prompt_recall(memory, question)


def test_a_question_sharing_one_word_with_a_memory_gets_it_a_statement_does_not():
    from ihmt.loop.recall import prompt_recall

    deb = _hit(
        "m1", "the deb ones go to kavya, @kbhatt, she does the debian package", 3.4, 0.5, ["deb"]
    )
    question, statement = "who handles the .deb?", "the deb build is slow today"
    memory = _ScriptedMemory(
        {question: _result(question, [deb], 0.38), statement: _result(statement, [deb], 0.38)}
    )
    assert "kavya" in prompt_recall(memory, question)
    assert prompt_recall(memory, statement) == ""
    # the one word must carry half the question: "handles" alone is no topic
    handles = _hit("m2", "Homebrew formula updates are handled by tomas.", 2.0, 0.3, ["handl"])
    memory.results[question] = _result(question, [handles], 0.38)
    assert prompt_recall(memory, question) == ""


def test_the_whole_prompt_and_its_question_agreeing_on_one_memory_show_it():
    from ihmt.loop.recall import prompt_recall, question_clause

    prompt = "sizing retention for the telemetry table, how often does an idle device report?"
    clause = question_clause(prompt)
    assert clause == "how often does an idle device report?"
    answer = _hit(
        "m1", "every 5 min normally, 30s while a zone is watering", 4.0, 0.2, ["often", "devic"]
    )
    other = _hit(
        "m2", "The telemetry table is partitioned by day.", 3.0, 0.2, ["telemetri", "tabl"]
    )
    memory = _ScriptedMemory(
        {
            prompt: _result(prompt, [answer, other], 0.2),  # too weak alone
            clause: _result(clause, [answer, other], 0.25),  # too weak alone
        }
    )
    assert "every 5 min" in prompt_recall(memory, prompt)
    assert memory.asked == [prompt, clause]
    # when the two readings lead with different memories, nothing is shown
    memory.results[clause] = _result(clause, [other, answer], 0.25)
    assert prompt_recall(memory, prompt) == ""
    # nor when either search found nothing about the prompt
    memory.results[clause] = _result(clause, [answer], 0.25, not_found=True)
    assert prompt_recall(memory, prompt) == ""


def test_an_agent_question_that_says_it_keeps_the_sentence_naming_it():
    from ihmt.loop.extract import extract

    (when,) = extract(
        [
            _agent("I'll add a schedule for the forecast job. What time should it run?"),
            _user("05:40. replenishment starts 07:00"),
        ]
    )
    assert when.text == (
        "05:40. replenishment starts 07:00 (in reply to: \"I'll add a schedule for the "
        'forecast job. What time should it run?")'
    )
    # a question naming its subject needs nothing before it
    (branch,) = extract(
        [_agent("The pipeline is green. Which branch deploys to staging?"), _user("develop")]
    )
    assert branch.text == 'develop (in reply to: "Which branch deploys to staging?")'
    # a person's question in a chat keeps only itself: the sentence before is their news
    *_, chat = extract(
        [
            _user("Melanie: I finished the mural! Where did you see it?"),
            _user("Caroline: at the lake"),
        ]
    )
    assert chat.text.endswith('(in reply to Melanie: "Where did you see it?")')


def test_a_spanish_agent_question_with_a_pronoun_keeps_the_sentence_naming_it():
    """ "¿Dónde los guardamos?": "los" after the question word stands for the backups of the
    sentence before; "los" before a noun is an article, and the question names its subject."""
    from ihmt.loop.extract import extract

    (where,) = extract(
        [
            _agent("Propongo copias diarias de la base fuera del VPS. ¿Dónde los guardamos?"),
            _user("Backblaze B2, ya tengo cuenta"),
        ]
    )
    assert where.text.endswith(
        '(in reply to: "Propongo copias diarias de la base fuera del VPS. ¿Dónde los guardamos?")'
    )
    (named,) = extract(
        [
            _agent("El pipeline está en verde. ¿Dónde guardamos los backups?"),
            _user("Backblaze B2, ya tengo cuenta"),
        ]
    )
    assert named.text.endswith('(in reply to: "¿Dónde guardamos los backups?")')


def test_the_brief_lists_the_question_itself_not_the_sentence_before_it(ws):
    from ihmt.text.reply import with_question

    memory = IHMT.open(ws)
    try:
        long_before = "I'll add a schedule for the forecast job, next to the hourly ingest. " * 2
        memory.save(with_question("05:40", long_before.strip() + " What time should it run?"))
        answers = memory.session_brief().split("(question, then answer):")[1]
        assert "What time should it run? 05:40" in answers
        assert "hourly ingest" not in answers
    finally:
        memory.close()


def test_facts_typed_fast_dates_and_reported_changes_are_statements():
    from ihmt.loop.extract import durable_sentence

    assert durable_sentence("pennine launch slipped to 6 May, photos arent ready") == "statement"
    assert durable_sentence("the staging cert expires on March 3rd") == "statement"
    assert durable_sentence("the replica doesnt keep up at peak") == "statement"
    assert durable_sentence("sounds lovely, see you soon then") == ""


def test_an_opening_ok_is_a_reply_only_when_nothing_is_asked_after_it():
    from ihmt.loop.recall import after_acknowledgement, replies_to_agent

    for reply in ("yes do it", "thanks, commit it", "ok looks good, push it", "ok thanks"):
        assert replies_to_agent(reply), reply
    for question in (
        "ok, which branch deploys to staging?",
        "great, what port does the api use",
        "ok to force-unwrap the tag id in TagReader? it's never null",
        "ok if I leave a print() in carrier-ingest for debugging?",
    ):
        assert not replies_to_agent(question), question
    assert after_acknowledgement("sure, can you also run the linter?") == (
        "can you also run the linter?"
    )


def test_a_question_after_ok_gets_the_memory_that_answers_it(ws):
    memory = IHMT.open(ws)
    try:
        memory.save("The develop branch deploys to staging; main deploys to production.")
        memory.save("Releases go out on Tuesdays after the standup.")
        memory.save("Pagination on list endpoints is keyset, 50 a page.")
        assert "develop branch" in memory.prompt_recall("ok which branch deploys to staging?")
        assert memory.prompt_recall("ok thanks") == ""
    finally:
        memory.close()


def test_a_prompt_asking_again_the_agents_question_gets_the_reply_however_weak_the_match():
    from ihmt.loop import recall
    from ihmt.text.reply import with_question

    prompt = "how long do we let an ansible run go before killing it?"
    asked = "How long can an ansible run take before we kill it?"
    reply = _hit("m1", with_question("10 minutes", asked), 3.0, 0.2, ["ansibl", "run"])
    memory = _ScriptedMemory({prompt: _result(prompt, [reply], 0.2)})  # under the 0.3 floor
    assert "10 minutes" in recall.prompt_recall(memory, prompt)
    # the same answer to a question sharing one word with the prompt: the floor decides
    one_word = with_question("10 minutes", "And the ansible version?")
    memory.results[prompt] = _result(prompt, [_hit("m1", one_word, 3.0, 0.2, ["ansibl"])], 0.2)
    assert recall.prompt_recall(memory, prompt) == ""
    # another person's question is theirs, not the agent's
    theirs = with_question("10 minutes", asked, asker="Melanie")
    memory.results[prompt] = _result(prompt, [_hit("m1", theirs, 3.0, 0.2, ["ansibl"])], 0.2)
    assert recall.prompt_recall(memory, prompt) == ""
    # a request for work with the question's words is no question
    request = "make the ansible run take longer before we kill it"
    memory.results[request] = _result(request, [reply], 0.2)
    assert recall.prompt_recall(memory, request) == ""


def test_a_named_prompt_asking_again_the_agents_question_gets_the_reply():
    """The reply does not name the product the prompt names, so no memory is about it; the
    agent's question it answers is the prompt's question all the same."""
    from ihmt.loop import recall
    from ihmt.text.reply import with_question

    prompt = "Which Snowflake role does the CI job run as?"
    assert recall.prompt_names(prompt) == ["Snowflake"]
    asked = "Which role should the CI job run as in the warehouse?"
    reply = _hit("m1", with_question("CI_TRANSFORMER", asked), 3.0, 0.4, ["role", "ci", "job"])
    memory = _ScriptedMemory({prompt: _result(prompt, [reply], 0.4)})
    assert "CI_TRANSFORMER" in recall.prompt_recall(memory, prompt)
    statement = _hit("m2", "The CI job runs on the shared runners.", 3.0, 0.4, ["ci", "job"])
    memory.results[prompt] = _result(prompt, [statement], 0.4)
    assert recall.prompt_recall(memory, prompt) == ""


def test_once_the_best_memory_qualifies_the_next_three_come_along_however_weak():
    from ihmt.loop.recall import prompt_recall

    prompt = "which branch do we deploy to staging from?"
    prod = _hit("m1", "Prod deploys go out from the release branch only.", 5.0, 0.5, ["deploy"])
    staging = _hit("m2", 'develop (in reply to: "Which branch for stg?")', 1.0, 0.1, ["branch"])
    far = _hit("m3", "The staging database is refreshed nightly.", 0.5, 0.1, ["stage"])
    fourth = _hit("m4", "Branch names start with the ticket number.", 0.4, 0.1, ["branch"])
    fifth = _hit("m5", "Feature branches are deleted after merge.", 0.3, 0.1, ["branch"])
    memory = _ScriptedMemory({prompt: _result(prompt, [prod, staging, far, fourth, fifth], 0.6)})
    block = prompt_recall(memory, prompt)
    assert "release branch" in block and "develop" in block and "refreshed nightly" in block
    assert "ticket number" in block
    assert "deleted after merge" not in block  # four at most


def test_news_that_changes_a_fact_is_kept_as_a_correction_not_read_as_a_request():
    from ihmt.loop.extract import durable_sentence
    from ihmt.loop.patterns import REQUEST

    for news in (
        "Change of plan from Hannah: MTD go-live has slipped to 3 June.",
        "change of plans for 2.0: freeze moves to july 1, release end of july.",
        "Update: the on-sale moved to March 27, same time.",
        "heads up, we bumped to node 24 on vercel last week",
        "Update: el on-sale del Festival se movió al 27 de marzo, mismo horario.",
    ):
        assert durable_sentence(news) == "correction", news
    # a label or a noun after the verb is no order; the order itself still is
    assert not REQUEST.search("Update: staging runs Postgres 16")
    assert not REQUEST.search("change of plan: we ship Friday")
    assert REQUEST.search("update the readme with the new port")
    # an order that sets a value is kept, as a decision (not a correction)
    assert durable_sentence("change the port to 9000 in the compose file") == "decision"
    assert durable_sentence("update the readme with the new port") == ""


def test_an_order_that_sets_a_value_is_kept_as_a_decision():
    """ "make it 4pm", "use 9464": the order is done in the session, but the value it sets
    is what a later session asks for ("what time do reminders go out?"). Orders without a
    value stay work for the session, and a question is no decision."""
    from ihmt.loop.extract import durable_sentence, extract

    for order in (
        "make it 4pm",
        "use 9464",
        "Also change the sync to every 2 hours.",
        "change wholesale to 40% off retail",
        "Make the freshness TTL 45s instead of 30s, across the board.",
        "Use vitest, not jest.",
    ):
        assert durable_sentence(order) == "decision", order
    for work in (
        "make the API return 404 when the item is missing",
        "rename the variable tmp to buffer everywhere",
        "move the file to src/",
        "use it",
        "make it 2x faster?",
        "fix this test",
    ):
        assert durable_sentence(work) == "", work
    turns = [
        _user("also Denise wants reminders earlier. make it 4pm"),
        _agent("Done: reminders now go out at 16:00."),
    ]
    (kept,) = extract(turns)
    assert kept.kind == "decision" and "make it 4pm" in kept.text and "Denise" in kept.text


def test_a_thing_named_by_an_order_word_is_a_subject_not_an_order():
    """ "Test Mirth is mirth-tst02 now", "Test fixtures use synthetic MRNs": "test", "build",
    "deploy" name a thing when a verb follows them; the sentence states a fact a later session
    asks for. The same words giving an order stay work for this session."""
    from ihmt.loop.extract import durable_sentence, extract
    from ihmt.loop.patterns import REQUEST

    for fact in (
        "Test Mirth is mirth-tst02 now, tst01 is gone.",
        "Test fixtures use synthetic MRNs that start with ZZ9.",
        "Build times went up after the merge.",
        "Deploy keys live in the vault, never in the repo.",
    ):
        assert not REQUEST.search(fact), fact
        assert durable_sentence(fact), fact
    for order in (
        "fix the tests that are failing",
        "test it now",
        "deploy it to staging",
        "build the image and push it",
        "Update the deploy script and anything else that points at it.",
        "make sure the port is 8080",
    ):
        assert REQUEST.search(order), order
    turns = [
        _user(
            "Heads up, infra rebuilt the test box last week. Test Mirth is mirth-tst02 now, "
            "tst01 is gone. Update the deploy script and anything else that points at it."
        ),
        _agent("Updated deploy.sh and the README to mirth-tst02."),
    ]
    (kept,) = extract(turns)
    assert kept.correction and "mirth-tst02" in kept.text and "Update the deploy" not in kept.text


def test_a_reply_naming_the_agents_proposal_keeps_the_proposal():
    """ "I'd go with BrasilAPI and fall back to manual entry" — "BrasilAPI. no second API as
    fallback": naming the proposal accepts it as clearly as "ok" does, so the agent's
    proposal is kept as agreed. Naming something else, or asking about it, accepts nothing."""
    from ihmt.loop.extract import extract

    proposal = _agent(
        "Two public options: BrasilAPI (free, no key) or ReceitaWS (3 requests per minute on "
        "the free tier). I'd go with BrasilAPI and fall back to manual entry if it's down."
    )
    (kept,) = extract([proposal, _user("BrasilAPI. no second API as fallback, just manual entry.")])
    assert kept.kind == "explanation" and "I'd go with BrasilAPI" in kept.text
    for reply in ("ReceitaWS.", "BrasilAPI?", "manual entry only"):
        assert not [c for c in extract([proposal, _user(reply)]) if c.kind == "explanation"]


def test_a_value_put_in_place_of_the_agents_is_kept_as_a_decision():
    """ "ok, sounds good. but 15 days, not 10": the user accepts the plan with another value;
    that value is what a later session asks for ("after how many days does it go
    read-only?")."""
    from ihmt.loop.extract import durable_sentence, extract

    for value in ("but 15 days, not 10", "port 8443, not 443", "3 retries, not 5"):
        assert durable_sentence(value) == "decision", value
    assert durable_sentence("not now, maybe later") == ""
    turns = [
        _agent("Proposal: after 10 days overdue the office goes read-only; admins see a banner."),
        _user("ok, sounds good. but 15 days, not 10"),
    ]
    kept = [c for c in extract(turns) if c.kind == "decision"]
    assert kept and "15 days, not 10" in kept[0].text


def test_a_reply_telling_the_agent_where_to_look_keeps_the_place():
    """ "Loki. You query it through Grafana at grafana.hq.lan" answers "Where do the logs end
    up?": the sentence speaks to the agent, but the host in it is the answer."""
    from ihmt.loop.extract import extract

    turns = [
        _agent("Where do the logs end up? I'd pick a format for it."),
        _user("Loki. You query it through Grafana at grafana.hq.lan"),
    ]
    (kept,) = extract(turns)
    assert "grafana.hq.lan" in kept.text and "Where do the logs end up?" in kept.text
    turns[1] = _user("Loki. Thanks, you're great")
    (kept,) = extract(turns)
    assert "great" not in kept.text


def test_a_proposal_the_user_accepts_is_kept_and_one_rejected_is_not():
    """The agent's "I'd cluster by (snapshot_date, store_id)" followed by "ok, sounds good" is
    a decision taken: kept, like an explanation with "because". "no, keep it as it is" after
    it is none."""
    from ihmt.loop.extract import extract

    proposal = (
        "With 215 locations and daily snapshots, I'd cluster by (snapshot_date, store_id). "
        "I would not add item_id: too high cardinality."
    )
    turns = [_agent(proposal), _user("ok, sounds good")]
    (kept,) = extract(turns)
    assert kept.kind == "explanation" and "(snapshot_date, store_id)" in kept.text
    turns[1] = _user("no, keep it as it is")
    assert [c for c in extract(turns) if c.kind == "explanation"] == []


def test_a_request_made_only_of_running_the_tests_gets_nothing():
    """ "run the tests again" shares "test" and "run" with many memories; every word of it is
    about doing the work, so no memory answers it, however well it covers those words."""
    from ihmt.loop.recall import prompt_recall

    rule = _hit(
        "m1", "always run the tests before you commit, never push red", 4.0, 1.0, ["run", "test"]
    )
    memory = _ScriptedMemory({"run the tests again": _result("run the tests again", [rule], 0.9)})
    assert prompt_recall(memory, "run the tests again") == ""
    question = "which tests do we run before a commit?"
    memory.results[question] = _result(question, [rule], 0.9)
    assert "always run the tests" in prompt_recall(memory, question)


def test_a_prohibition_with_ever_is_a_rule_and_update_on_is_a_label():
    from ihmt.loop.extract import durable_sentence

    assert durable_sentence("don't hand-edit anything in src/sbe_gen, ever.") == "rule"
    assert durable_sentence("no !! in nfc:validation, ever.") == "rule"
    assert durable_sentence("Update on timing: soft launch moved to May 4.") == "statement"


def test_changes_rules_and_spanish_statements_typed_to_an_agent_are_kept():
    from ihmt.loop.extract import durable_sentence

    assert durable_sentence("Promovia changed, they deliver on Tuesdays now, since May.")
    assert durable_sentence("release mgmt changed the rollout steps last week") == "statement"
    assert durable_sentence("rule for looker: explores only ever point to marts.") == "rule"
    assert durable_sentence("Regla: los textos que ve el cliente siempre en español.") == "rule"
    spanish = "Pagalia cambió las condiciones y ahora el voucher dura 72 horas"
    assert durable_sentence(spanish) == "statement"
    assert durable_sentence("el deploy de producción es los martes a las 7") == "statement"
    # chatter stays out, in either language
    assert durable_sentence("muchas gracias por la ayuda de hoy") == ""
    assert durable_sentence("sounds lovely, see you soon then") == ""


def test_options_in_bold_a_pick_named_first_and_an_approved_recommendation_are_kept():
    from ihmt.loop.extract import extract

    bold = _agent(
        "Three options:\n\n**A) Send after commit.** Simple, but an event can be lost.\n\n"
        "**B) Transactional outbox.** A row in the same transaction, relayed to Kafka.\n\n"
        "**C) Debezium.** Reads the WAL; needs Kafka Connect."
    )
    (pick,) = extract([bold, _user("B. Platform won't run Kafka Connect for us this year.")])
    assert '(option B: "Transactional outbox.")' in pick.text
    # the first sentence names the pick; the rest says why another lost
    tools = _agent(
        "(A) Elementary - a dbt package with Slack alerts; (B) plain dbt tests with a custom "
        "callback; (C) Monte Carlo - a full observability product, paid."
    )
    (named,) = extract([tools, _user("elementary. no budget for monte carlo this year anyway")])
    assert "(option A:" in named.text
    # a word inside a hyphenated or slashed package name names its option
    pdf = _agent(
        "Two options: A) barryvdh/laravel-dompdf, pure PHP, limited CSS. B) spatie/browsershot, "
        "needs Chrome on the servers."
    )
    (part,) = extract([pdf, _user("ok, dompdf. the layout is simple anyway")])
    assert "(option A:" in part.text
    # numbers in brackets within a sentence label options too
    inline = _agent(
        "For clustering there are three choices: (1) snapshot_date only, (2) snapshot_date "
        "then store_id, (3) store_id then snapshot_date. Dashboards filter on a date range."
    )
    (two,) = extract([inline, _user("2, date then store")])
    assert '(option 2: "snapshot_date then store_id")' in two.text
    # "ok, sounds good" to the agent's own recommendation picks it; a refusal picks nothing
    advice = _agent(
        "Two options: A) group inserts with pgx.Batch, maybe 3-5x faster. B) CopyFrom into a "
        "staging table, then INSERT ... ON CONFLICT. I recommend B: COPY is the fastest path."
    )
    (approved,) = extract([advice, _user("ok, sounds good, do it")])
    assert approved.kind == "decision" and "(option B:" in approved.text
    refused = extract([advice, _user("no, wait, let me think about it")])
    assert not any("(option" in item.text for item in refused)


def test_text_wrapped_by_hand_stays_one_sentence_and_spanish_news_and_picks_are_kept():
    from ihmt.loop.extract import durable_sentence, extract, sentences

    # a line that goes on in lower case continues the sentence; a list item or a new
    # capitalised line starts another
    asked = "Which test runner do you want? Nothing is set up in the monorepo\nyet."
    assert sentences(asked) == ["Which test runner do you want?", asked.split("? ")[1]]
    assert sentences("Steps:\n- run the linter\n- commit") == [
        "Steps:",
        "- run the linter",
        "- commit",
    ]
    (reply,) = extract([_agent(asked), _user("vitest")])
    assert reply.text == 'vitest (in reply to: "Which test runner do you want?")'
    delay = "Malas noticias: la puesta en marcha de Páramo se retrasa al 6 de mayo."
    assert durable_sentence(delay) == "statement"
    offer = _agent(
        "Dos opciones: A) Suscripciones OPC UA, el servidor avisa de cada cambio. "
        "B) Polling de todos los nodos en cada ciclo. Yo iría con A."
    )
    (pick,) = extract([offer, _user("Vamos con la opción A, el SCADA ya va justo de CPU.")])
    assert pick.kind == "decision" and "(option A:" in pick.text


def test_long_rules_and_decisions_do_not_crowd_the_users_answers_out_of_the_brief(ws):
    from ihmt.loop.recall import BRIEF_TOKENS
    from ihmt.text.reply import with_question
    from ihmt.text.tokens import estimate_tokens

    memory = IHMT.open(ws)
    try:
        memory.save(
            with_question("develop", "Which branch deploys to staging?"), timestamp="2026-01-02"
        )
        memory.save(with_question("3.12", "Which Python version?"), timestamp="2026-01-03")
        for n in range(10):  # rules long enough to fill the whole brief on their own
            rule = f"Always run the full suite {n} before merging: " + "lint, types, tests. " * 12
            memory.save(rule, timestamp=f"2026-02-{n + 10}")
        brief = memory.session_brief()
        assert "Recent decisions and rules:" in brief
        assert "Which branch deploys to staging? develop" in brief
        assert "Which Python version? 3.12" in brief
        assert estimate_tokens(brief) <= BRIEF_TOKENS
    finally:
        memory.close()


def test_french_statements_decisions_and_requests_typed_to_an_agent():
    from ihmt.loop.extract import durable_sentence
    from ihmt.loop.recall import asks, replies_to_agent

    assert durable_sentence("On part sur FastAPI pour l'API interne.") == "decision"
    assert durable_sentence("Le poller va chercher les ventes aux 2 minutes.") == "statement"
    assert durable_sentence("En fait, c'est le port 8040, pas 8000.") == "correction"
    assert durable_sentence("Toujours en UTF-8 avec BOM pour les exports.") == "rule"
    assert durable_sentence("mets le TTL à 45 s au lieu de 30") == "decision"
    assert durable_sentence("Règle absolue : on ne modifie jamais les exports bruts.") == "rule"
    assert durable_sentence("Ajoute les frais de port aussi, 4,90 € par colis") == "decision"
    assert durable_sentence("Ajoute un test pour le cas vide") == ""
    # a request for work now, or chatter, is no memory
    assert durable_sentence("Peux-tu relancer les tests d'intégration?") == ""
    assert durable_sentence("corrige le test qui plante sur la CI") == ""
    assert durable_sentence("merci beaucoup pour ton aide aujourd'hui") == ""
    # a French question asks; an acknowledgement answers the agent
    assert asks("c'est quoi le port de l'API")
    assert replies_to_agent("oui, vas-y") and not replies_to_agent("ok, quel port on utilise?")


def test_a_reply_to_two_questions_keeps_both():
    """The agent asks two things at once; the reply answers the first as much as the second,
    so both questions are kept with it ("3.12" is found by "which Python version")."""
    from ihmt.loop.extract import extract

    asked = _agent(
        "I'll set up the project. Which Python version should I target? And which web "
        "framework do you want for the internal API?"
    )
    (kept,) = extract([asked, _user("3.12, like the server. FastAPI for the API.")])
    assert "Which Python version" in kept.text and "which web framework" in kept.text


def test_spanish_statements_corrections_decisions_and_requests_typed_to_an_agent():
    """Spanish as people type it to an agent: first-person and third-person facts with verbs
    no list names ("actualicé", "migraron", "quiere"), a correction after an opener, a value
    put in place of another, and orders in tú or vos that are work for now."""
    from ihmt.loop.extract import durable_sentence
    from ihmt.loop.recall import replies_to_agent

    assert durable_sentence("Ayer actualicé el servidor de pruebas a Python 3.13.") == "statement"
    assert durable_sentence("Lucía, nuestra contadora, quiere el cierre el día 5.") == "statement"
    assert durable_sentence("Ojo: el sábado migraron la base a MySQL 8.4.") == "correction"
    assert durable_sentence("Otra cosa: al final el puerto es 9443, no 8443.") == "correction"
    assert durable_sentence("Al final el timeout quedó en 45 s, no 30 s.") == "correction"
    assert durable_sentence("Decidimos usar Caddy en vez de Nginx.") == "decision"
    assert durable_sentence("Cambialo: por defecto 20 por página.") == "decision"
    # orders for this session, in tú or vos, are no memory
    assert durable_sentence("Arreglá el test que falla en la CI.") == ""
    assert durable_sentence("Agregale un índice a la tabla de pedidos.") == ""
    assert durable_sentence("Corré otra vez la suite de integración.") == ""
    assert durable_sentence("Podés revisar por qué tarda tanto el login") == ""
    # "subí" is also "I raised": a fact, not an order
    assert durable_sentence("Subí el límite de conexiones a 200 en producción.") != ""
    assert replies_to_agent("dale, hacelo así") and replies_to_agent("sí, con cron")
    assert not replies_to_agent("Si la API falla, ¿qué hacemos?")


def test_a_value_after_an_article_and_a_fact_after_a_request_are_kept():
    """An article between the verb and the value changes nothing ("Usá el 8010 para gunicorn"
    sets a value as "use 8010" does); a request that goes on to tell something ("Hacé las
    dos, pero además ya agrandé el droplet: lo pasé al de 4 GB") is kept for what it tells.
    A request alone stays work."""
    from ihmt.loop.extract import durable_sentence

    assert durable_sentence("Usá el 8010 para gunicorn.") == "decision"
    assert durable_sentence("Use the 2.1 image for the worker.") == "decision"
    assert durable_sentence("Dejalo en 30 segundos.") == "decision"
    told = "Hacé las dos, pero además ya agrandé el droplet: lo pasé al de 4 GB."
    assert durable_sentence(told) == "statement"
    assert durable_sentence("Fix the flaky test, but the runner has 8 GB now.") == "statement"
    assert durable_sentence("Hacé las dos y después corré los tests.") == ""
    assert durable_sentence("Run the tests, but don't push yet.") == ""
    assert durable_sentence("Use the staging bucket for that.") == ""


def test_a_value_set_by_more_verbs_a_value_put_for_another_and_a_choice_told_as_an_order():
    """More verbs set a value ("drop the leg cache TTL to 6h" as "lower" does); "Sunquest now
    sends to 6671, not 6661" puts one value in place of another after a longer subject; "go with
    merge, 3-day lookback" is a choice. "go for it" and "go ahead" pick nothing."""
    from ihmt.loop.extract import durable_sentence

    assert durable_sentence("drop the leg cache TTL to 6h") == "decision"
    assert durable_sentence("keep it at 5 retries") == "decision"
    assert durable_sentence("Sunquest now sends to 6671, not 6661.") == "decision"
    assert durable_sentence("go with merge, 3-day lookback") == "decision"
    assert durable_sentence("ok, go with the short code column") == "decision"
    assert durable_sentence("go for it") == ""
    assert durable_sentence("go ahead with it") == ""
    assert durable_sentence("drop the table and start over") == ""
    # a word or two between the verb and the value, or a bound ("under 300KB")
    assert durable_sentence("make the grace 60 seconds, wifi is terrible there") == "decision"
    assert durable_sentence("Keep each photo under 300KB.") == "decision"
    assert durable_sentence("One rule from the start: no force unwraps outside tests.") == "rule"
    # a value told for what it applies to, and a person named to a listener
    assert durable_sentence("14 days for anything in the big kit category") == "decision"
    assert durable_sentence("30 minutos por turno") == "decision"
    assert durable_sentence("2 tests failed in CI") == ""
    named = "the contact there is Alasdair Munro if you need to write questions down"
    assert durable_sentence(named) == "statement"
    assert durable_sentence("you should use Spring Boot here") == ""


def test_the_agents_question_before_what_the_choice_weighs_is_answered_by_the_reply():
    """The agent asks, then weighs the choice ("where should the warning go? We have two
    outputs … If it goes to stderr …"): the reply answers that question. A question the agent
    answers itself ("why did the build fail? The cache was stale.") is no question put to the
    user; and "Read-only." names a way, it is no order to read."""
    from ihmt.loop.extract import extract, question_answered
    from ihmt.loop.transcript import Turn

    asked = Turn(
        "assistant",
        "Before I write them: where should the deprecation warning go? We have two outputs, "
        "stderr and the log. If it only goes to the log, cron users never see it. If it goes "
        "to stderr, cron mails it on every run.",
    )
    reply = Turn("user", "stderr, always. cron mail is the point")
    assert "where should the deprecation warning go?" in question_answered([asked, reply], 1)[0]
    (kept,) = extract([asked, reply])
    assert kept.text.startswith("stderr, always.") and "in reply to" in kept.text
    told = Turn(
        "assistant",
        "Why did the build fail? The cache was stale. I cleared it and the build is green. "
        "The nightly runs at 02:00.",
    )
    assert question_answered([told, Turn("user", "great, merging now")], 1) == ("", "")
    valves = Turn("assistant", "Should the node also switch the valves? There's a relay pin.")
    (pick,) = extract([valves, Turn("user", "No. Read-only. The nodes never actuate anything.")])
    assert "Read-only." in pick.text


def test_a_reply_opening_with_a_name_the_agent_weighed_keeps_the_pick():
    """The agent weighs tools without asking ("Twilio is the default; 46elks is cheaper for
    Nordic numbers"); a reply opening with one of their names picks it: the name is kept with
    the agent's sentence about it. A reply opening otherwise, or naming nothing the agent
    said, stays as it was."""
    from ihmt.loop.extract import extract, pick_named
    from ihmt.loop.transcript import Turn

    weighed = Turn(
        "assistant",
        "For SMS: Twilio is the default choice; 46elks is cheaper for Nordic numbers and has a "
        "simple REST API. Vonage is another option.",
    )
    reply = Turn("user", "46elks. The client already has an account there.")
    assert "46elks is cheaper" in pick_named([weighed, reply], 1)
    (kept,) = extract([weighed, reply])
    assert kept.text.startswith("46elks.") and "in reply to" in kept.text
    assert "Pagy is much lighter" in pick_named(
        [Turn("assistant", "Pagy is much lighter than Kaminari."), Turn("user", "Pagy then")], 1
    )
    assert pick_named([weighed, Turn("user", "Mailgun. We have an account.")], 1) == ""
    assert pick_named([weighed, Turn("user", "ok. do it")], 1) == ""


def test_the_sentence_after_a_rule_or_a_correction_is_kept_with_it():
    """A rule or a correction often carries its point in the next sentence ("never delete a
    movement. If someone gets it wrong, a counter-entry is made"): it is kept with it; after
    a plain statement an aside is not."""
    from ihmt.loop.extract import extract

    (rule,) = extract(
        [_user("Nunca se borra una factura emitida. Si alguien se equivoca, nota de crédito.")]
    )
    assert "nota de crédito" in rule.text and rule.kind == "rule"
    (fix,) = extract(
        [_user("Cambio importante: los reembolsos ya no los aprueba Tomás. Ahora los ve Inés.")]
    )
    assert "Ahora los ve Inés" in fix.text and fix.correction


def test_spanish_picks_accepted_proposals_and_reports_of_what_was_done_are_kept():
    """ "La B, …" picks an option; "Vamos con la A" picks one after an answer to something
    else; "dale" accepts what the agent proposed ("propongo …") or reports done ("Hecho: …")."""
    from ihmt.loop.extract import extract

    offer = _agent(
        "Dos caminos: A) guardar cada evento crudo; B) agregar por hora con mínimo y máximo. "
        "¿Cuál preferís?"
    )
    (pick,) = extract([offer, _user("La B, con retención de un año.")])
    assert "agregar por hora" in pick.text
    asked = _agent(
        "Opciones: A) colas con Redis; B) un cron cada minuto. ¿Cuántos envíos por día son?"
    )
    (later,) = extract([asked, _user("Unos 3000. Vamos con la A.")])
    assert "colas con Redis" in later.text
    proposal = _agent("Propongo guardar los PDF en un bucket aparte porque pesan mucho.")
    kept = extract([proposal, _user("dale, me parece bien")])
    assert kept and "bucket aparte" in kept[-1].text
    report = _agent("Hecho: el SKU ahora sigue el formato FAM-AAAA-NN, validado en el modelo.")
    kept = extract([report, _user("Perfecto.")])
    assert kept and "FAM-AAAA-NN" in kept[-1].text
