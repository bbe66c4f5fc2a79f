"""project_map and find_code through a real MCP client over stdio.

One server process (``python mcp_server.py`` with an explicit environment: IHMT_HOME and the
projects folder in tmp) serves every check of this module; every request has a time limit.
The project is generated in tmp and edited between calls to prove answers are never stale.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mcp_live import live_server

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
    with live_server(workdir / "home" / ".ihmt", workdir / "work", workdir / "projects") as live:
        yield live


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
    assert "class Cart" in text and ".total_price 7-8" in text
    assert "apply_discount 11-12" in text and "test_cart.py" not in text


def test_find_code_returns_file_lines_and_code_and_is_never_stale(server, workdir):
    text = server.ok("find_code", query="total_price", path=str(workdir / "work" / "shop"))
    assert text.startswith("src/cart.py:7-8  Cart.total_price")
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
    assert text.startswith("src/cart.py:11-12  apply_discount")


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
