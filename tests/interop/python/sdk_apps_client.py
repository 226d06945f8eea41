"""The official Python SDK's ``mcp.Client`` (pinned ``mcp==2.3.0``) as an MCP Apps host against an
mcpcore server (``echo_server --apps``): it declares the ``io.modelcontextprotocol/ui`` extension,
finds the tool bound to an app, reads the app resource and calls the tool, then prints ONE JSON
line with what it observed. Exit 1 with one line on stderr on failure.

Usage:
  sdk_apps_client.py --mode legacy|modern (--stdio CMD... | --url URL)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.extension import ClientExtension

UI = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"


class Apps(ClientExtension):
    """The host side of MCP Apps as the SDK declares an extension (SEP-2133): the MIME types
    this host renders."""

    identifier = UI

    def settings(self) -> dict[str, Any]:
        return {"mimeTypes": [MIME]}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    server: Any = args.url or StdioServerParameters(command=args.stdio[0], args=args.stdio[1:])
    mode = "legacy" if args.mode == "legacy" else "2026-07-28"
    async with Client(server, mode=mode, extensions=[Apps()], read_timeout_seconds=10) as client:
        out: dict[str, Any] = {"protocolVersion": client.protocol_version}
        server_caps = client.server_capabilities
        out["declared"] = UI in ((server_caps.extensions or {}) if server_caps else {})
        tools = (await client.list_tools()).tools
        bound = {t.name: (t.meta or {}).get("ui") for t in tools if (t.meta or {}).get("ui")}
        out["bound"] = bound
        uri = bound["show_echo"]["resourceUri"]
        read = await client.read_resource(uri)
        contents = read.contents[0]
        out["app"] = {"uri": str(contents.uri), "mimeType": contents.mime_type,
                      "html": "ui/initialize" in contents.text,
                      "meta": (contents.meta or {}).get("ui")}
        result = await client.call_tool("show_echo", {"text": "hi from the python sdk"})
        out["fallback"] = [b.text for b in result.content if b.type == "text"]
        out["structured"] = result.structured_content
        return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["legacy", "modern"], required=True)
    p.add_argument("--url")
    p.add_argument("--stdio", nargs=argparse.REMAINDER)
    args = p.parse_args()
    if not args.url and not args.stdio:
        p.error("give --url or --stdio")
    try:
        out = anyio.run(run, args)
    except BaseException as e:  # report every failure on one line
        msg = " ".join(f"{type(e).__name__}: {e}".split())
        print(f"sdk_apps_client: error: {msg}", file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
