"""Gateway: upstream MCP servers (a Python toolbox server as a stdio child, the Rust
conformance fixture as a second one) behind one server built in Python from a config dict,
with a local Python tool beside them, served on HTTP and called by the mcpcore client in both
lineages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpcore import Client, Gateway, InvalidInput, McpError

from conftest import LINEAGES, PY, RUST_BIN, TOOLBOX, bounded, run_async

LINEAGE_IDS = [l for l, _ in LINEAGES]


def config() -> dict:
    return {
        "mcpServers": {
            "box": {"command": PY, "args": [str(TOOLBOX)], "include": ["echo", "add"]},
            "fixture": {
                "command": str(RUST_BIN / "mcpcore"),
                "args": ["conformance-server", "--stdio"],
                "prefix": "fx.",
                "protocolVersion": "2025-11-25",
                "include": ["test_simple_text"],
            },
        }
    }


def build() -> Gateway:
    gateway = Gateway(config(), "py-gateway")

    @gateway.tool()
    def local_time(city: str = "Oslo") -> str:
        """The host's own tool, beside the upstreams'."""
        return f"noon in {city}"

    return gateway


@pytest.mark.parametrize("lineage,version", LINEAGES, ids=LINEAGE_IDS)
@run_async(timeout=60)
async def test_a_gateway_from_a_config_dict_with_a_local_tool(lineage: str, version: str) -> None:
    async with build() as gateway:
        assert gateway.upstreams() == ["box", "fixture"]
        assert gateway.status("box") == {"state": "up", "restarts": 0, "last_error": None}
        assert gateway.status("nope") is None
        serving = await gateway.serve_http()
        try:
            async with await bounded(Client.connect_http(serving.url, lineage=lineage)) as client:
                assert client.protocol_version == version
                names = [t.name for t in await client.list_tools()]
                assert names == ["box__add", "box__echo", "fx.test_simple_text", "local_time"]
                r = await client.call_tool("box__echo", {"text": "through the gateway"})
                assert r.text == "through the gateway"
                r = await client.call_tool("fx.test_simple_text", {})
                assert "simple text" in (r.text or "").lower()
                r = await client.call_tool("local_time", {"city": "Bergen"})
                assert r.text == "noon in Bergen"
                info = client.server_info or {}
                assert info.get("name") == "py-gateway"
        finally:
            await serving.shutdown()
    # Shut down: the upstreams are gone, the local tool stays registered.
    assert gateway.registry.names == ["local_time"]


@run_async
async def test_config_from_a_file_and_bad_configs(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config()))
    gateway = Gateway(path)
    with pytest.raises(InvalidInput, match="not started"):
        gateway.upstreams()
    await gateway.start()
    try:
        assert gateway.upstreams() == ["box", "fixture"]
    finally:
        await gateway.shutdown()
    with pytest.raises(InvalidInput, match="mcpServers.broken: needs"):
        await Gateway({"mcpServers": {"broken": {"args": []}}}).start()
    with pytest.raises(McpError, match='upstream "gone"'):
        await Gateway({"mcpServers": {"gone": {"command": "/nonexistent/server"}}}).start()
