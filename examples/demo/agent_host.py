#!/usr/bin/env python3
"""The mission in one file: a Python agent host whose registry mixes a local Python tool with
the tools of a Node server and a Rust server (loaded from an ``mcpServers`` config, the file
people already have), calls each, then serves the union over HTTP and lets the official Python
and TypeScript SDK clients call it.

    python agent_host.py RUST_ECHO_SERVER NODE_ECHO_SERVER_MJS [TS_CLIENT_MJS]

Run by ``make demo`` (scripts/demo.sh) with the workspace's binaries and examples.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, Dict, List

from mcpcore import Registry, Server


def local_tools(registry: Registry) -> None:
    @registry.tool()
    def word_count(text: str) -> Dict[str, int]:
        """Counts the words of a text (a local Python tool)."""
        return {"words": len(text.split())}


async def official_python_client(url: str, calls: List[Any]) -> List[str]:
    """The official Python SDK (``mcp``) calling the served union."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    out = []
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = sorted(t.name for t in (await session.list_tools()).tools)
            out.append(f"tools: {', '.join(names)}")
            for name, args in calls:
                result = await session.call_tool(name, args)
                text = " ".join(c.text for c in result.content if getattr(c, "type", "") == "text")
                out.append(f"{name}{json.dumps(args)} -> {text}")
    return out


async def main() -> None:
    rust_server, node_server = sys.argv[1], sys.argv[2]
    ts_client = sys.argv[3] if len(sys.argv) > 3 else None

    registry = Registry()
    local_tools(registry)
    servers = await registry.load_config({"mcpServers": {
        "node": {"command": "node", "args": [node_server]},
        "rust": {"command": rust_server},
    }})
    print(f"registry: local word_count + {', '.join(servers)} servers -> {', '.join(registry.names)}")

    calls = [("word_count", {"text": "one engine, three languages"}),
             ("node__echo", {"text": "hello from the Node tool"}),
             ("rust__add", {"a": 2, "b": 40})]
    for name, args in calls:
        result = await registry.call_tool(name, args)
        print(f"  host calls {name}: {result.text or result.structured_content}")

    serving = await Server("agent-host", "1.0", registry=registry).serve_http()
    print(f"serving the union over HTTP at {serving.url}")
    try:
        for line in await official_python_client(serving.url, calls):
            print(f"  official Python SDK client: {line}")
        if ts_client:
            proc = await asyncio.create_subprocess_exec(
                "node", ts_client, serving.url, json.dumps(calls), stdout=asyncio.subprocess.PIPE
            )
            out, _ = await proc.communicate()
            if proc.returncode != 0:
                raise SystemExit(f"the TypeScript client failed ({proc.returncode})")
            for line in out.decode().splitlines():
                print(f"  official TypeScript SDK client: {line}")
    finally:
        await serving.shutdown()
        for server in servers:
            await registry.disconnect(server)


if __name__ == "__main__":
    asyncio.run(main())
