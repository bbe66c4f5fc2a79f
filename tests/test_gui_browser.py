"""The GUI in a real headless Chromium: every screen shows real data from the examples store.

Driven by Playwright's Python package against Debian's /usr/bin/chromium (never a downloaded
browser). Screenshots of the four screens go to a temporary folder, or to the folder named by
IHMT_SCREENSHOTS_DIR (docs/make_screenshots.py sets it to docs/screenshots).
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import pytest

from ihmt import IHMT
from ihmt.gui.server import make_server

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        "Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True
    )

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 800}
# axe-core from npm (.ci/run installs it: npm install --prefix .cache/axe axe-core@4)
AXE_JS = Path(os.environ.get("IHMT_AXE_JS") or ROOT / ".cache/axe/node_modules/axe-core/axe.min.js")
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
OTHER_SERVER = {"command": "npx", "args": ["-y", "@example/other-mcp"]}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    base = tmp_path_factory.mktemp("gui-browser")
    home = base / "home"
    project = home / "projects" / "webshop"
    project.mkdir(parents=True)
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"other": OTHER_SERVER}}, indent=2), encoding="utf-8"
    )
    workspace = home / ".ihmt"
    memory = IHMT.initialize(workspace, branch_factor=4, target_tokens=400, max_tokens=600)
    memory.ingest_paths([EXAMPLES])
    memory.save("Deploy rule: the webshop ships on Tuesdays only.", domain="general")
    memory.save(
        "Deploy rule: the webshop ships on Thursdays only.",
        domain="general",
        replaces="webshop ships on Tuesdays",
    )
    memory.flush()
    server = make_server(workspace, port=0, browse_root=home)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    shots = Path(os.environ.get("IHMT_SCREENSHOTS_DIR") or base / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    scratch = base / "scratch-shots"
    scratch.mkdir()
    yield {
        "server": server,
        "memory": memory,
        "home": home,
        "project": project,
        "workspace": workspace,
        "shots": shots,
        "scratch": scratch,
    }
    server.shutdown()
    server.server_close()
    server.app.close()
    memory.close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def context(browser):
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
    yield context
    context.close()


def watched_page(context, site):
    """A page on the GUI that records every script error, CSP violation and failed call."""
    page = context.new_page()
    page.set_default_timeout(10_000)
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on(
        "console",
        lambda msg: problems.append(f"console: {msg.text}") if msg.type == "error" else None,
    )
    page.problems = problems  # a test that provokes an error on purpose clears it
    page.goto(site["server"].url)
    page.wait_for_selector("body.ready")
    return page


@pytest.fixture
def page(context, site):
    page = watched_page(context, site)
    yield page
    page.close()
    assert not page.problems, page.problems  # no script error, no CSP violation, no failed call


def shot(page, site, name: str) -> None:
    page.screenshot(path=str(site["shots"] / f"{name}.png"))


def open_domain(page, name: str):
    domain = page.locator(
        ".tnode-domain",
        has=page.locator(".chip.domain", has_text=re.compile(f"^{re.escape(name)}$")),
    )
    domain.locator("> .trow").click()
    return domain


def descend_to_leaves(node):
    """Open the first branch at each level until the open node's children are leaves."""
    while True:
        first_child = node.locator("> ul > li").first
        first_child.wait_for()
        if "tnode-leaf" in (first_child.get_attribute("class") or ""):
            return node
        node = first_child
        node.locator("> .trow").click()


def test_explore_reaches_a_leaf_text(page, site):
    page.click("[data-tab=explore]")
    domains = page.locator(".tnode-domain > .trow .chip.domain")
    domains.first.wait_for()
    names = domains.all_inner_texts()
    assert "personal" in names and "software.java" in names
    personal = open_domain(page, "personal")
    leaves = site["memory"].trunk()["domains"]["personal"]["leaves"]
    assert f"{leaves} memories" in personal.locator("> .trow").inner_text()
    branch = descend_to_leaves(personal)
    leaf = branch.locator("> ul > .tnode-leaf").last
    leaf.locator("> .trow").click()
    text = leaf.locator(".leaf-text").inner_text()
    leaf_id = leaf.locator(".meta-grid dd.mono").inner_text()
    stored = site["memory"].leaf(leaf_id)
    assert stored is not None and text.strip() == stored.content.strip()
    assert "journal_personal.txt" in leaf.locator(".meta-grid").inner_text()


def test_explore_shows_outdated_notices(page, site):
    branch = descend_to_leaves(open_domain(page, "personal"))  # the oldest journal entries
    outdated = branch.locator("> ul > .tnode-leaf", has=page.locator(".badge.outdated"))
    assert outdated.count() >= 1
    outdated.first.locator("> .trow").click()
    warnings = outdated.first.locator(".leaf-card .notice.warn")
    warnings.first.wait_for()  # the card is fetched after the click
    notices = warnings.all_inner_texts()
    assert any("Madrid" in n and "Valencia" in n for n in notices), notices
    assert "Madrid" in outdated.first.locator(".leaf-text").inner_text()
    shot(page, site, "explore")


def test_diagnose_ambiguous_and_descent_path(page, site):
    page.click("[data-tab=diagnose]")
    page.fill("#diag-query", "Luis")
    page.click("#diag-form button[type=submit]")
    page.wait_for_selector("#diag-candidates")
    assert page.inner_text("#diag-verdict .verdict-badge") == "AMBIGUOUS"
    assert page.locator("#diag-candidates li").count() >= 2

    page.fill("#diag-query", "reserveStock soft hold")
    page.click("#diag-form button[type=submit]")
    page.wait_for_selector("#diag-best")
    expected = site["memory"].search("reserveStock soft hold")
    assert page.inner_text("#diag-verdict .verdict-badge") == "FOUND"
    total = expected.total_leaves + expected.total_nodes
    opened = expected.node_reads + expected.leaf_reads
    assert page.inner_text("#diag-files") == f"{opened} of {total}"
    reads = page.inner_text("#diag-reads")
    assert f"{expected.node_reads} branch" in reads and f"{expected.leaf_reads} memory" in reads
    best_nodes = page.locator("#diag-path .dnode.best-path")
    assert best_nodes.count() == len(expected.best.path) - 1  # every node below the root
    labels = [n.get_attribute("title") for n in best_nodes.locator("> .drow .dlabel").all()]
    assert labels == expected.best.path[1:]
    assert "reserveStock" in page.inner_text("#diag-best .leaf-text")
    shot(page, site, "diagnose")


def test_diagnose_not_found(page, site):
    page.click("[data-tab=diagnose]")
    page.fill("#diag-query", "xylophone quasar")
    page.click("#diag-form button[type=submit]")
    page.wait_for_selector("#diag-verdict.notfound")
    assert page.inner_text("#diag-verdict .verdict-badge") == "NOT FOUND"


def test_timeline_draws_location_history(page, site):
    page.click("[data-tab=timeline]")
    card = page.locator('.tl-card[data-key="user::location"]')
    card.wait_for()
    labels = " ".join(card.locator("svg text.tl-label").all_text_contents())
    assert "Madrid" in labels and "Valencia" in labels
    assert card.locator("svg .tl-period.historical").count() >= 1
    assert card.locator("svg .tl-period.active").count() == 1
    changes = page.inner_text("#tl-changes")
    assert "Madrid" in changes and "Valencia" in changes
    page.click(".filter-row .chip-btn:text-is('user')")
    page.wait_for_selector('.tl-card[data-key="user::location"]')
    assert page.locator('.tl-card[data-key^="patient::"]').count() == 0
    shot(page, site, "timeline")


def test_language_switch_changes_labels_and_is_remembered(page, site):
    assert page.inner_text("[data-tab=explore]") == "Explore"
    page.click("[data-lang=es]")
    assert page.inner_text("[data-tab=explore]") == "Explorar"
    assert page.inner_text("[data-tab=setup]") == "Configurar"
    page.click("[data-tab=timeline]")
    page.wait_for_selector("#tl-changes")
    assert "Cronología" in page.inner_text("#view-timeline h1")
    assert "dijiste" in page.inner_text("#tl-changes")
    page.reload()
    page.wait_for_selector("body.ready")
    assert page.inner_text("[data-tab=explore]") == "Explorar"
    page.click("[data-lang=en]")
    assert page.inner_text("[data-tab=explore]") == "Explore"


def test_api_calls_carry_the_token_and_fail_without_it(page, site):
    assert "token=" not in page.url  # removed from the address bar once read
    status = page.evaluate("fetch('/api/info').then(r => r.status)")
    assert status == 403
    page.problems[:] = [p for p in page.problems if "403" not in p]
    assert page.locator("#store-pill .pill-path").inner_text().endswith(".ihmt")


def test_setup_preview_equals_what_is_written(page, site):
    page.click("[data-tab=setup]")
    page.wait_for_selector("#setup-agent")
    assert page.inner_text("#memory-path") == str(site["workspace"])
    page.click("#choose-project")
    page.wait_for_selector("#folder-list")
    page.click("#folder-list .folder:has-text('projects')")
    # each click reloads the list: wait for the next level before clicking into it
    page.wait_for_selector("#folder-list .folder:has-text('webshop')")
    page.click("#folder-list .folder:has-text('webshop')")
    page.wait_for_function(
        "expected => document.querySelector('#fd-current').innerText === expected",
        arg=str(site["project"]),
    )
    assert page.inner_text("#fd-current") == str(site["project"])
    page.click("#fd-use")
    assert page.inner_text("#project-path") == str(site["project"])
    page.click("#preview-project")
    preview = page.locator("#project-preview-text")
    preview.wait_for()
    text = preview.text_content()
    target = site["project"] / ".mcp.json"
    assert "ihmt-memory" not in target.read_text(encoding="utf-8")  # nothing written yet
    shot(page, site, "setup")
    page.click("#confirm-project")
    page.wait_for_selector("#written")
    assert target.read_bytes() == text.encode("utf-8")
    servers = json.loads(text)["mcpServers"]
    assert servers["other"] == OTHER_SERVER
    assert servers["ihmt-memory"]["env"] == {"IHMT_HOME": str(site["workspace"])}
    page.click("[data-mode=claude]")
    command = page.inner_text(".cmd-claude pre")
    assert command.startswith("claude mcp add ihmt-memory -s user -e IHMT_HOME=")


def test_setup_hooks_step_shows_the_change_then_installs_and_removes_it(page, isolated_home):
    """The optional hooks step: the preview shows the settings file's diff, nothing is written
    before the confirm, and install then remove gives the user's file back byte for byte."""
    path = isolated_home / ".claude" / "settings.json"  # the server reads HOME when asked
    path.parent.mkdir()
    own = '{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "lint.sh"}]}]}}\n'
    path.write_text(own, encoding="utf-8")
    page.click("[data-tab=setup]")
    page.wait_for_selector("#setup-hooks")
    assert "not installed" in page.inner_text("#hooks-row-claude-user")
    page.click("#hooks-install-claude-user")
    page.wait_for_selector("#hooks-diff")
    diff = page.inner_text("#hooks-diff")
    assert "+" in diff and "hooks run --agent claude" in diff and "UserPromptSubmit" in diff
    assert path.read_text(encoding="utf-8") == own  # previewed, not written
    assert str(path) in page.inner_text("#hooks-preview")
    page.click("#confirm-hooks")
    page.wait_for_selector("#hooks-done")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["hooks"]["PreToolUse"] == json.loads(own)["hooks"]["PreToolUse"]
    assert "installed: SessionStart" in page.inner_text("#hooks-row-claude-user")
    page.click("#hooks-uninstall-claude-user")
    page.wait_for_selector("#hooks-steps")
    assert "restore" in page.inner_text("#hooks-steps")
    page.click("#confirm-hooks")
    page.wait_for_selector("#hooks-install-claude-user")
    assert path.read_bytes() == own.encode("utf-8")
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


# -- every screen, at every width, in both languages -----------------------------------------------
WIDTHS = (390, 768, 1280)
LANGUAGES = ("en", "es")


def set_language(page, lang: str) -> None:
    page.click(f"[data-lang={lang}]")
    page.wait_for_function("lang => document.documentElement.lang === lang", arg=lang)


def visit_screens(page):
    """Walk every screen with real content on it; yields a name once each one is drawn."""
    page.click("[data-tab=setup]")
    page.wait_for_selector("#setup-agent")
    yield "setup"
    page.click("#choose-memory")
    page.wait_for_selector("#folder-list .folder")
    yield "folder-dialog"
    page.keyboard.press("Escape")
    page.wait_for_selector("#modal", state="hidden")
    page.click("[data-tab=explore]")
    branch = descend_to_leaves(open_domain(page, "personal"))
    leaf = branch.locator("> ul > .tnode-leaf").last
    leaf.locator("> .trow").click()
    leaf.locator(".leaf-text").wait_for()
    yield "explore"
    page.click("[data-tab=diagnose]")
    for query, marker, name in (
        ("reserveStock soft hold", "#diag-best", "diagnose"),
        ("Luis", "#diag-candidates", "diagnose-ambiguous"),
        ("xylophone quasar", "#diag-verdict.notfound", "diagnose-not-found"),
    ):
        page.fill("#diag-query", query)
        page.click("#diag-form button[type=submit]")
        page.wait_for_selector(marker)
        yield name
    page.click("[data-tab=timeline]")
    page.wait_for_selector(".tl-card")
    yield "timeline"
    page.click('.tl-card[data-key="user::location"] .tl-source a')
    page.wait_for_selector("#memory-focus .leaf-text")
    yield "memory"
    page.fill("#explore-query", "webshop deploy")
    page.click("#explore-find button[type=submit]")
    page.wait_for_selector("#explore-results .found-list")
    yield "explore-search"


def header_problems(page) -> list[str]:
    """Tabs and language buttons that are off-screen, clipped or off the dark header bar."""
    return page.evaluate(
        """() => {
        const out = [];
        const bar = document.querySelector('.topbar').getBoundingClientRect();
        for (const el of document.querySelectorAll('[data-tab], [data-lang]')) {
          const r = el.getBoundingClientRect();
          const name = el.dataset.tab || el.dataset.lang;
          if (r.width < 1 || r.height < 1) out.push(name + ' is not shown');
          if (r.left < 0 || r.right > innerWidth) out.push(name + ' is outside the window');
          if (r.top < bar.top || r.bottom > bar.bottom + 0.5 || r.left < bar.left || r.right > bar.right)
            out.push(name + ' falls out of the header bar');
          if (el.scrollWidth > el.clientWidth + 1) out.push(name + ' has its label cut');
          if (parseFloat(getComputedStyle(el).fontSize) < 12) out.push(name + ' is smaller than 12px');
        }
        return out;
    }"""
    )


def laid_out_box(page, selector: str) -> dict:
    """The element's box once the page has laid it out: a dialog that is still opening (or
    whose list is being redrawn) has none for a moment."""
    for _ in range(100):
        box = page.locator(selector).bounding_box()
        if box is not None:
            return box
        page.wait_for_timeout(50)
    raise AssertionError(f"{selector} was never laid out")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("width", WIDTHS)
def test_every_screen_fits_the_window(browser, site, width, lang):
    context = browser.new_context(viewport={"width": width, "height": 844}, locale="en-US")
    page = watched_page(context, site)
    try:
        set_language(page, lang)
        for screen in visit_screens(page):
            overflow = page.evaluate(
                "() => [document.scrollingElement.scrollWidth, window.innerWidth]"
            )
            assert overflow[0] <= overflow[1], (screen, overflow)
            assert header_problems(page) == [], screen
            if screen == "folder-dialog":
                box = laid_out_box(page, ".modal-card")
                assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
                assert box["y"] >= 0 and box["y"] + box["height"] <= 844, box
            page.screenshot(path=str(site["scratch"] / f"{screen}-{width}-{lang}.png"))
            if (width, lang, screen) == (390, "en", "explore"):
                shot(page, site, "narrow")
        assert not page.problems, page.problems
    finally:
        context.close()


# -- accessibility ------------------------------------------------------------------------------
def axe_violations(page, source: str) -> list[str]:
    """Serious and critical WCAG 2.2 AA (and best-practice) violations axe-core finds now."""
    page.evaluate(source)  # through the debugger protocol, so the page's CSP does not apply
    found = page.evaluate(
        """tags => axe.run(document, {runOnly: {type: 'tag', values: tags}}).then(r =>
            r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
              .map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')))""",
        AXE_TAGS,
    )
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("width", (390, 1280))
def test_axe_finds_no_serious_violation_on_any_screen(browser, site, width, lang):
    if not AXE_JS.is_file():
        pytest.skip(
            f"axe-core is not installed at {AXE_JS} (npm install --prefix .cache/axe axe-core@4)"
        )
    source = AXE_JS.read_text(encoding="utf-8")
    context = browser.new_context(viewport={"width": width, "height": 844}, locale="en-US")
    page = watched_page(context, site)
    try:
        set_language(page, lang)
        report = {screen: axe_violations(page, source) for screen in visit_screens(page)}
        assert report == {screen: [] for screen in report}
        assert len(report) == 9
    finally:
        context.close()


def focused(page) -> str:
    return page.evaluate(
        "() => { const a = document.activeElement; return a.id || a.dataset.tab || a.className; }"
    )


def test_tabs_move_with_the_arrow_keys(page):
    page.focus("[data-tab=explore][aria-selected=true]")
    assert page.get_attribute("#tab-explore", "aria-controls") == "view-explore"
    page.keyboard.press("ArrowRight")
    assert focused(page) == "tab-diagnose"
    assert page.is_visible("#view-diagnose") and not page.is_visible("#view-explore")
    page.keyboard.press("End")
    assert focused(page) == "tab-timeline" and page.is_visible("#view-timeline")
    page.keyboard.press("ArrowRight")  # wraps round
    assert focused(page) == "tab-setup" and page.is_visible("#view-setup")
    page.keyboard.press("ArrowLeft")
    assert focused(page) == "tab-timeline"
    tabindexes = page.eval_on_selector_all("[role=tab]", "els => els.map(e => e.tabIndex)")
    assert sorted(tabindexes) == [-1, -1, -1, 0]  # one tab stop for the whole list


def test_tree_opens_and_walks_with_the_keyboard(page):
    page.click("[data-tab=explore]")
    first = page.locator(".tnode-domain > .trow").first
    first.focus()
    page.keyboard.press("ArrowRight")  # opens the domain
    page.wait_for_selector(".tnode-domain.open > ul > li")
    assert page.get_attribute(".tnode-domain >> nth=0", "aria-expanded") == "true"
    page.keyboard.press("ArrowRight")  # enters its first child
    child = page.evaluate(
        "document.activeElement.parentElement.parentElement.parentElement.className"
    )
    assert "tnode-domain" in child
    page.keyboard.press("ArrowLeft")  # back to the domain (the child is closed)
    assert page.evaluate("document.activeElement.parentElement.classList.contains('tnode-domain')")
    page.keyboard.press("ArrowLeft")  # closes it
    page.wait_for_selector(".tnode-domain.open", state="detached")
    page.keyboard.press("ArrowDown")
    second = page.evaluate(
        "document.activeElement === document.querySelectorAll('.tnode-domain > .trow')[1]"
    )
    assert second


def test_the_explore_tree_is_one_tab_stop_that_remembers_the_current_row(page):
    page.click("[data-tab=explore]")
    page.wait_for_selector(".tnode-domain > .trow")
    stops = page.eval_on_selector_all(".tree .trow", "els => els.map(e => e.tabIndex)")
    assert len(stops) > 1 and sorted(stops) == [-1] * (len(stops) - 1) + [0]
    before_tree = ".tree-card .card-actions button"
    page.focus(before_tree)
    page.keyboard.press("Tab")  # into the tree: its first row
    assert page.evaluate(
        "document.activeElement === document.querySelector('.tnode-domain > .trow')"
    )
    page.keyboard.press("Tab")  # and straight out again, not through every row
    assert not page.evaluate("document.activeElement.classList.contains('trow')")
    page.focus(before_tree)
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowRight")  # opens the first domain
    page.wait_for_selector(".tnode-domain.open > ul > li")
    page.keyboard.press("ArrowDown")  # its first child
    child = "document.querySelector('.tnode-domain.open > ul > li > .trow')"
    assert page.evaluate(f"document.activeElement === {child}")
    stops = page.eval_on_selector_all(".tree .trow", "els => els.map(e => e.tabIndex)")
    assert stops.count(0) == 1 and page.evaluate(f"{child}.tabIndex") == 0
    page.focus(before_tree)
    page.keyboard.press("Tab")  # back into the tree at the row last used
    assert page.evaluate(f"document.activeElement === {child}")


def test_folder_dialog_takes_focus_and_escape_gives_it_back(page):
    page.click("[data-tab=setup]")
    page.wait_for_selector("#setup-agent")
    page.focus("#choose-memory")
    page.keyboard.press("Enter")
    page.wait_for_selector("#folder-list .folder")
    page.wait_for_function("document.querySelector('#modal').contains(document.activeElement)")
    for _ in range(12):  # Tab never leaves the dialog
        page.keyboard.press("Tab")
        assert page.evaluate("document.querySelector('#modal').contains(document.activeElement)")
    page.keyboard.press("Escape")
    assert page.is_hidden("#modal")
    assert focused(page) == "choose-memory"


# -- every user-visible server string in the page's language ---------------------------------------
PROSE_KEYS = {"reason", "notices", "notice", "error"}


def server_prose(payload, found: set[str]) -> None:
    """The English sentences the server sends for people (reasons, notices, errors)."""
    if isinstance(payload, dict):
        for key, value in payload.items():
            if key in PROSE_KEYS:
                for text in value if isinstance(value, list) else [value]:
                    if isinstance(text, str) and len(text.split()) >= 3:
                        found.add(text)
            elif key == "source_label" and value == "saved memory":
                found.add(value)
            else:
                server_prose(value, found)
    elif isinstance(payload, list):
        for item in payload:
            server_prose(item, found)


def test_a_spanish_screen_shows_no_english_from_the_server(page, site):
    sent: set[str] = set()

    def record(response) -> None:
        if "/api/" in response.url:
            try:
                server_prose(response.json(), sent)
            except Exception:  # not JSON (never expected): nothing to record
                pass

    page.on("response", record)
    set_language(page, "es")
    seen = []
    for screen in visit_screens(page):
        seen.append((screen, page.inner_text("body")))
    page.click("[data-tab=diagnose]")
    for query in ("the of and", "Deploy rule webshop Tuesdays"):
        page.fill("#diag-query", query)
        page.click("#diag-form button[type=submit]")
        page.wait_for_selector("#diag-verdict")
        seen.append((query, page.inner_text("body")))
    assert "recuerdo guardado" in seen[-1][1]
    assert "dijiste" in dict(seen)["timeline"]  # the changes, worded in Spanish
    assert "Leídos:" in seen[-1][1]
    assert "stop words" in " ".join(sent) and "saved memory" in sent  # the probes reached them
    leaks = [(where, text) for where, body in seen for text in sent if text in body]
    assert leaks == []


def test_folder_dialog_takes_a_typed_path_and_words_errors_in_spanish(page, site):
    set_language(page, "es")
    page.click("[data-tab=setup]")
    page.click("#choose-project")
    page.wait_for_selector("#fd-path")
    page.fill("#fd-path", str(site["project"]))
    page.press("#fd-path", "Enter")
    page.wait_for_function(
        "p => document.querySelector('#fd-current').innerText === p", arg=str(site["project"])
    )
    page.fill("#fd-path", "/etc")
    page.press("#fd-path", "Enter")
    error = page.locator("#modal .notice.error")
    error.wait_for()
    assert error.inner_text().startswith("Solo se pueden usar carpetas dentro de")
    page.problems[:] = [p for p in page.problems if "403" not in p]
    page.keyboard.press("Escape")


# ------------------------------------------------------------------ deep links


def go_hash(page, fragment: str) -> None:
    page.evaluate("h => { location.hash = h; }", fragment)


def reload(page) -> None:
    page.reload()
    page.wait_for_selector("body.ready")


def test_a_memory_link_opens_it_and_a_reload_keeps_it(page, site):
    leaf_id = site["memory"].catalog.leaf_ids_like("L-")[0]
    stored = site["memory"].leaf(leaf_id)
    go_hash(page, f"#/memory/{leaf_id}")
    page.wait_for_selector("#memory-focus .leaf-text")
    assert page.inner_text("#memory-focus .leaf-text").strip() == stored.content.strip()
    reload(page)
    page.wait_for_selector("#memory-focus .leaf-text")
    assert page.get_attribute("[data-tab=explore]", "aria-selected") == "true"
    assert page.inner_text("#memory-focus .leaf-text").strip() == stored.content.strip()
    shown_id = page.locator("#memory-focus .meta-grid dd.mono a")
    assert shown_id.inner_text() == leaf_id  # the id shown is itself a link to the memory
    assert shown_id.get_attribute("href") == f"#/memory/{leaf_id}"
    page.click("#memory-close")
    page.wait_for_selector("#memory-focus", state="detached")
    assert page.evaluate("location.hash") == "#/explore"


def test_a_search_link_reruns_the_search_on_reload(page, site):
    page.click("[data-tab=diagnose]")
    page.fill("#diag-query", "reserveStock soft hold")
    page.fill("#diag-clue", "java")
    page.click("#diag-form button[type=submit]")
    page.wait_for_selector("#diag-best")
    assert page.evaluate("location.hash") == "#/search?q=reserveStock+soft+hold&clue=java"
    reload(page)
    page.wait_for_selector("#diag-best")
    assert page.input_value("#diag-query") == "reserveStock soft hold"
    assert page.input_value("#diag-clue") == "java"
    assert "reserveStock" in page.inner_text("#diag-best .leaf-text")
    best = site["memory"].search("reserveStock soft hold", clue="java").best
    link = page.locator("#diag-best .hit-head a.mem-link")
    assert link.get_attribute("href") == f"#/memory/{best.leaf_id}"
    leaf_links = page.locator("#diag-path a.dlabel.mem-link")
    assert leaf_links.count() >= 1  # memories in the descent open too
    link.click()
    page.wait_for_selector("#memory-focus .leaf-text")
    assert "reserveStock" in page.inner_text("#memory-focus .leaf-text")
    page.go_back()  # the browser's Back returns to the search
    page.wait_for_selector("#diag-best")
    assert page.get_attribute("[data-tab=diagnose]", "aria-selected") == "true"


def test_a_timeline_subject_link_survives_reload(page, site):
    page.click("[data-tab=timeline]")
    page.wait_for_selector(".tl-card")
    page.click(".filter-row .chip-btn[data-subject=user]")
    assert page.evaluate("location.hash") == "#/timeline?subject=user"
    reload(page)
    page.wait_for_selector('.tl-card[data-key="user::location"]')
    assert page.locator('.tl-card[data-key^="patient::"]').count() == 0
    assert page.get_attribute(".filter-row .chip-btn[data-subject=user]", "aria-pressed") == "true"


def test_each_current_fact_links_to_the_memory_it_came_from(page, site):
    page.click("[data-tab=timeline]")
    card = page.locator('.tl-card[data-key="user::location"]')
    card.wait_for()
    active = site["memory"].current_facts()["user::location"]
    link = card.locator(".tl-source a")
    assert link.get_attribute("href") == f"#/memory/{active.source_leaf}"
    leaf = site["memory"].leaf(active.source_leaf)
    assert leaf.timestamp[:4] in link.inner_text()  # the memory's date is shown
    link.click()
    page.wait_for_selector("#memory-focus .leaf-text")
    assert active.value in page.inner_text("#memory-focus .leaf-text")
    page.click("[data-tab=timeline]")
    employer = page.locator('.tl-card[data-key="user::employer"]')
    assert (
        "Mareas Tech" in employer.locator(".tl-now strong").inner_text()
    )  # the journal's job change
    employer.locator(".tl-source a").click()
    page.wait_for_selector("#memory-focus .leaf-text")
    assert "firmado el contrato con Mareas Tech" in page.inner_text("#memory-focus .leaf-text")


def test_each_detected_change_links_to_its_old_and_new_memory(page, site):
    page.click("[data-tab=timeline]")
    page.wait_for_selector("#tl-changes .change-list li")
    changes = [c for c in site["memory"].contradictions() if c.old_leaf and c.new_leaf]
    assert changes
    items = page.locator("#tl-changes .change-list li")
    shown = {
        tuple(a.get_attribute("href") for a in item.locator(".change-sources a.mem-link").all())
        for item in items.all()
    }
    for change in changes:
        assert (f"#/memory/{change.old_leaf}", f"#/memory/{change.new_leaf}") in shown
    move = next(c for c in changes if c.key == "user::location" and "Valencia" in c.new_value)
    item = items.filter(has_text="Valencia").first
    links = item.locator(".change-sources a.mem-link")
    assert links.all_inner_texts() == [move.old_leaf, move.new_leaf]  # the ids, like elsewhere
    links.first.click()
    page.wait_for_selector("#memory-focus .leaf-text")
    assert (
        site["memory"].leaf(move.old_leaf).content.strip()
        == page.inner_text("#memory-focus .leaf-text").strip()
    )
    page.go_back()
    page.wait_for_selector("#tl-changes .change-list li")
    page.locator("#tl-changes .change-list li", has_text="Valencia").first.locator(
        ".change-sources a.mem-link"
    ).last.click()
    page.wait_for_selector("#memory-focus .leaf-text")
    assert "Valencia" in page.inner_text("#memory-focus .leaf-text")


def test_explore_search_box_lists_memories_and_corrections_link(page, site):
    page.click("[data-tab=explore]")
    page.fill("#explore-query", "webshop ships on Tuesdays")
    page.click("#explore-find button[type=submit]")
    results = page.locator("#explore-results .found-list li")
    results.first.wait_for()
    assert page.evaluate("location.hash") == "#/explore?q=webshop+ships+on+Tuesdays"
    old = results.filter(has_text="Tuesdays").first
    assert " — " not in old.inner_text()  # title and excerpt are separate lines
    old.locator("a.mem-link").click()
    page.wait_for_selector("#memory-focus .leaf-text")
    source = page.inner_text("#memory-focus .meta-grid")
    assert "1–1" not in source and re.search(r"\b(line|línea) 1\b", source)  # one line
    notice = page.locator("#memory-focus .notice.warn a.mem-link")
    assert notice.count() == 1  # "Corrected by memory L-…" is a link
    notice.click()
    page.wait_for_function(
        "() => (document.querySelector('#memory-focus .leaf-text') || {}).innerText"
        " && document.querySelector('#memory-focus .leaf-text').innerText.includes('Thursdays')"
    )
    reload(page)
    page.wait_for_selector("#memory-focus .leaf-text")
    assert "Thursdays" in page.inner_text("#memory-focus .leaf-text")
    page.go_back()
    page.go_back()
    page.wait_for_selector("#explore-results .found-list li")
    assert page.input_value("#explore-query") == "webshop ships on Tuesdays"
