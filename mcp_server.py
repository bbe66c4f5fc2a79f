"""Run IHMT's stdio MCP server from a clone: ``python3 mcp_server.py`` (see INSTALL.md)."""

from ihmt.mcp_server import main

if __name__ == "__main__":
    main()
