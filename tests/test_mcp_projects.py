"""project_map and find_code through a real MCP client over stdio.

One server process (``python mcp_server.py`` with an explicit environment: IHMT_HOME and the
projects folder in tmp) serves every check of this module; every request has a time limit.
The project is generated in tmp and edited between calls to prove answers are never stale.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STARTUP_LIMIT = 90  # seconds: importing the SDK alone takes several on a busy machine
CALL_LIMIT = 60

SHOP = '''\
class Cart:
    """A shopping cart."""

    def add_item(self, sku, qty=1):
        self.items[sku] = self.items.get(sku, 0) + qty

    def total_price(self, prices):
        return sum(prices[sku] * qty for sku, qty in self.items.items())


def apply_discount(total, percent):
    return total * (100 - percent) / 100
'''


class Live:
    def __init__(self, portal, session, log: Path) -> None:
        self.portal = portal
        self.session = session
        self.log = log

    def request(self, name: str, args: dict) -> tuple[str, bool]:
        import anyio

        async def call():
            with anyio.fail_after(CALL_LIMIT):
                return await self.session.call_tool(name, args)

        result = self.portal.call(call).model_dump(by_alias=True)
        text = "\n".join(block.get("text", "") for block in result["content"])
        return text, bool(result.get("isError"))

    def ok(self, name: str, **args) -> str:
        text, failed = self.request(name, args)
        assert not failed, f"{name} failed: {text}\n{self.log.read_text('utf-8')[-2000:]}"
        return text

    def error(self, name: str, **args) -> str:
        text, failed = self.request(name, args)
        assert failed, f"{name} should have failed but answered: {text}"
        assert "\n" not in text.strip(), f"tool errors are one line: {text!r}"
        return text

    def list_tools(self) -> list[dict]:
        import anyio

        async def call():
            with anyio.fail_after(CALL_LIMIT):
                return await self.session.list_tools()

        return [
            t.model_dump(by_alias=True, exclude_none=True) for t in self.portal.call(call).tools
        ]


@contextlib.asynccontextmanager
async def _client(home: Path, projects: Path, cwd: Path, errlog):
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "mcp_server.py")],
        env={
            "IHMT_HOME": str(home),
            "IHMT_PROJECTS_DIR": str(projects),
            "HOME": str(home.parent),
            "PYTHONIOENCODING": "utf-8",
        },
        cwd=str(cwd),
    )
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            with anyio.fail_after(STARTUP_LIMIT):
                await session.initialize()
            yield session


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("mcp-projects")
    shop = base / "work" / "shop"
    (shop / "src").mkdir(parents=True)
    (shop / "tests").mkdir()
    (shop / "src" / "cart.py").write_text(SHOP, encoding="utf-8")
    (shop / "src" / "money.py").write_text(
        "def round_cents(value):\n    return round(value, 2)\n", encoding="utf-8"
    )
    (shop / "tests" / "test_cart.py").write_text(
        "def test_total_price():\n    assert True\n", encoding="utf-8"
    )
    return base


@pytest.fixture(scope="module")
def server(workdir):
    pytest.importorskip("mcp")
    from anyio.from_thread import start_blocking_portal

    log = workdir / "server.log"
    with open(log, "w", encoding="utf-8") as errlog, start_blocking_portal() as portal:
        client = _client(workdir / "home" / ".ihmt", workdir / "projects", workdir / "work", errlog)
        with portal.wrap_async_context_manager(client) as session:
            yield Live(portal, session, log)


def test_the_project_tools_are_listed_read_only_with_their_arguments(server):
    tools = {tool["name"]: tool for tool in server.list_tools()}
    assert {"project_map", "find_code"} <= set(tools)
    find = tools["find_code"]
    assert {"query", "path", "scope", "subpath", "clue", "max_tokens"} <= set(
        find["inputSchema"]["properties"]
    )
    assert set(find["inputSchema"]["required"]) == {"query", "path"}
    assert find["inputSchema"]["properties"]["scope"]["enum"] == ["main", "test", "all"]
    assert find["inputSchema"]["properties"]["max_tokens"]["type"] == "integer"
    pmap = tools["project_map"]
    assert {"path", "detail", "subpath"} <= set(pmap["inputSchema"]["properties"])
    for tool in (find, pmap):
        assert tool["annotations"]["readOnlyHint"] is True
        assert tool["annotations"]["destructiveHint"] is False
        assert "optional" in tool["description"].lower()


def test_project_map_lists_files_and_symbols(server):
    text = server.ok("project_map", path="shop")  # relative to the server's working dir
    assert text.startswith("PROJECT shop: 3 files")
    assert "cart.py" in text and "money.py" in text and "test_cart.py" in text
    text = server.ok("project_map", path="shop", detail="symbols", subpath="src")
    assert "class Cart" in text and ".total_price 6-8" in text
    assert "apply_discount 9-12" in text and "test_cart.py" not in text


def test_find_code_returns_file_lines_and_code_and_is_never_stale(server, workdir):
    text = server.ok("find_code", query="total_price", path=str(workdir / "work" / "shop"))
    assert text.startswith("src/cart.py:6-8  Cart.total_price")
    assert "prices[sku] * qty" in text
    assert "tests/test_cart.py" not in text  # scope main skips tests
    tests = server.ok("find_code", q="total_price", path="shop", scope="test")
    assert tests.startswith("tests/test_cart.py:1-2  test_total_price")

    cart = workdir / "work" / "shop" / "src" / "cart.py"
    cart.write_text(
        SHOP.replace(
            "return sum(prices[sku] * qty for sku, qty in self.items.items())",
            "return round(sum(prices[s] * q for s, q in self.items.items()), 2)",
        ),
        encoding="utf-8",
    )
    text = server.ok("find_code", query="total_price", path="shop")
    assert "round(sum(prices[s] * q" in text and "prices[sku] * qty" not in text


def test_find_code_not_found_and_truncation(server):
    text = server.ok("find_code", query="kubernetes ingress controller", path="shop")
    assert text.startswith("NOT FOUND")
    text = server.ok("find_code", query="apply_discount", path="shop", max_tokens=1)
    assert text.startswith("src/cart.py:9-12  apply_discount")


def test_bad_arguments_are_one_line_tool_errors(server, workdir):
    assert "no such folder" in server.error("find_code", query="cart", path="no/such/dir")
    assert "not a folder" in server.error(
        "project_map", path=str(workdir / "work" / "shop" / "src" / "money.py")
    )
    assert "scope" in server.error("find_code", query="cart", path="shop", scope="unit")
    assert "detail" in server.error("project_map", path="shop", detail="everything")
    assert "path" in server.error("find_code", query="cart")
    assert "query" in server.error("find_code", path="shop", query="  ")
    # and the server goes on answering
    assert server.ok("project_map", path="shop").startswith("PROJECT shop")
