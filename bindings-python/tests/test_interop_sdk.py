"""Interop with the official Python SDK (mcp==2.3.0), both ways:

* the SDK's client (tests/interop/python/sdk_client.py over stdio, sdk_http_client.py over HTTP)
  calls the tools of a facade-written server (tests/servers/echo_like.py);
* an mcpcore Client calls the tools of the SDK's servers (sdk_server.py over stdio,
  sdk_http_server.py over HTTP), in both lineages.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterator, List, Optional

import pytest

from mcpcore import Client, McpError

from conftest import ECHO_LIKE, INTEROP, PY, Spawned, bounded, describe, run, run_async

pytest.importorskip("mcp", reason="the official SDK (mcp==2.3.0) is not installed")

SDK_CLIENT = INTEROP / "sdk_client.py"
SDK_HTTP_CLIENT = INTEROP / "sdk_http_client.py"
SDK_SERVER = INTEROP / "sdk_server.py"
SDK_HTTP_SERVER = INTEROP / "sdk_http_server.py"

# (sdk client flags, expected protocolVersion, expected lineage)
SDK_CLIENT_CASES = [
    ([], "2026-07-28", "modern"),
    (["--lineage", "modern"], "2026-07-28", "modern"),
    (["--lineage", "legacy"], "2025-11-25", "legacy"),
    (["--protocol-version", "2026-07-28"], "2026-07-28", "modern"),
    (["--protocol-version", "2025-06-18"], "2025-06-18", "legacy"),
    (["--protocol-version", "2024-11-05"], "2024-11-05", "legacy"),
]
SDK_CLIENT_IDS = ["auto", "modern", "legacy", "pin-2026-07-28", "pin-2025-06-18", "pin-2024-11-05"]


def sdk_output(proc: Any) -> Any:
    assert proc.returncode == 0, describe(proc)
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, describe(proc)
    return json.loads(lines[0])


def expected_add(version: str) -> Optional[dict]:
    # structuredContent exists from 2025-06-18 on; older sessions get the text only
    return {"sum": 5.0} if version >= "2025-06-18" else None


# --------------------------------------------------------------------------- SDK client → mcpcore


@pytest.mark.parametrize("flags,version,lineage", SDK_CLIENT_CASES, ids=SDK_CLIENT_IDS)
def test_sdk_stdio_client_calls_a_facade_server(flags: List[str], version: str, lineage: str) -> None:
    out = sdk_output(run([PY, SDK_CLIENT, *flags, "--text", "über stdio", "--timeout", "30", "--", PY, ECHO_LIKE],
                         timeout=60))
    assert out == {"protocolVersion": version, "lineage": lineage, "tools": ["add", "echo"],
                   "echo": "über stdio", "add": expected_add(version)}


@pytest.fixture(scope="module")
def echo_like_http() -> Iterator[str]:
    child = Spawned([PY, ECHO_LIKE, "--http"], "listening on ")
    yield child.url
    child.stop()


@pytest.mark.parametrize("flags,version,lineage", SDK_CLIENT_CASES, ids=SDK_CLIENT_IDS)
def test_sdk_http_client_calls_a_facade_server(echo_like_http: str, flags: List[str], version: str, lineage: str) -> None:
    out = sdk_output(run([PY, SDK_HTTP_CLIENT, *flags, "--text", "over http", "--timeout", "30", echo_like_http],
                         timeout=60))
    assert out == {"protocolVersion": version, "lineage": lineage, "tools": ["add", "echo"],
                   "echo": "over http", "add": expected_add(version)}


def test_sdk_sse_client_calls_a_facade_server(echo_like_http: str) -> None:
    sse_url = echo_like_http.rsplit("/", 1)[0] + "/sse"
    out = sdk_output(run([PY, SDK_HTTP_CLIENT, "--sse-transport", "--lineage", "legacy", "--protocol-version",
                          "2024-11-05", "--timeout", "30", sse_url], timeout=60))
    assert out == {"protocolVersion": "2024-11-05", "lineage": "legacy", "tools": ["add", "echo"],
                   "echo": "hello from python sdk", "add": None}


# --------------------------------------------------------------------------- mcpcore → SDK server

# (sdk server mode flags, lineage=, protocol_version=, expected version, expected lineage)
SDK_SERVER_CASES = [
    ([], None, None, "2026-07-28", "modern"),
    ([], "modern", None, "2026-07-28", "modern"),
    ([], "legacy", None, "2025-11-25", "legacy"),
    ([], None, "2025-06-18", "2025-06-18", "legacy"),
    ([], None, "2024-11-05", "2024-11-05", "legacy"),
    (["--legacy-only"], None, None, "2025-11-25", "legacy"),
    (["--modern-only"], None, None, "2026-07-28", "modern"),
]
SDK_SERVER_IDS = ["auto", "modern", "legacy", "pin-2025-06-18", "pin-2024-11-05", "server-legacy-only",
                  "server-modern-only"]


async def check_sdk_server(client: Client, version: str, lineage: str) -> None:
    assert (client.protocol_version, client.lineage) == (version, lineage)
    assert client.server_info is not None
    assert client.server_info["name"] == "mcpcore-interop-python-sdk-server"
    tools = {t.name: t for t in await client.list_tools()}
    assert sorted(tools) == ["add", "echo"]
    assert tools["echo"].input_schema["required"] == ["text"]
    echo = await client.call_tool("echo", {"text": "to the sdk"})
    assert echo.text == "to the sdk" and not echo.is_error
    add = await client.call_tool("add", {"a": 2, "b": 3})
    assert not add.is_error
    assert json.loads(add.text) == {"sum": 5.0}
    if version >= "2025-06-18":
        assert add.structured_content == {"sum": 5.0} and add.data == {"sum": 5.0}
    # the SDK server's own validation: a tool-level failure
    bad = await client.call_tool("echo", {"text": 42})
    assert bad.is_error and "must be a string" in bad.text
    # an unknown tool is a JSON-RPC -32602 there too
    with pytest.raises(McpError) as e:
        await client.call_tool("nope", {})
    assert e.value.code == -32602
    assert (await client.call_tool("echo", {"text": "still fine"})).text == "still fine"


@pytest.mark.parametrize("mode,lineage,pin,version,expected_lineage", SDK_SERVER_CASES, ids=SDK_SERVER_IDS)
@run_async(timeout=60)
async def test_mcpcore_client_calls_the_sdk_stdio_server(
    mode: List[str], lineage: Optional[str], pin: Optional[str], version: str, expected_lineage: str
) -> None:
    client = await bounded(
        Client.connect_stdio([PY, str(SDK_SERVER), *mode], lineage=lineage, protocol_version=pin, timeout=20), 30
    )
    async with client:
        await check_sdk_server(client, version, expected_lineage)


@pytest.fixture(scope="module")
def sdk_http_servers() -> Iterator[Callable[[str], str]]:
    """sdk_http_server.py processes by mode ("", "--legacy-only", "--modern-only",
    "--sse-transport"), started on first use; yields a lookup of their URLs."""
    children = {}

    def url(mode: str) -> str:
        if mode not in children:
            argv = [PY, SDK_HTTP_SERVER, "--port", "0", *([mode] if mode else [])]
            children[mode] = Spawned(argv, "READY ", timeout=30)
        return children[mode].url

    yield url
    for child in children.values():
        child.stop()


@pytest.mark.parametrize("mode,lineage,pin,version,expected_lineage", SDK_SERVER_CASES, ids=SDK_SERVER_IDS)
@run_async(timeout=60)
async def test_mcpcore_client_calls_the_sdk_http_server(
    sdk_http_servers: Callable[[str], str], mode: List[str], lineage: Optional[str], pin: Optional[str],
    version: str, expected_lineage: str,
) -> None:
    url = sdk_http_servers(mode[0] if mode else "")
    client = await bounded(Client.connect_http(url, lineage=lineage, protocol_version=pin, timeout=20), 30)
    async with client:
        await check_sdk_server(client, version, expected_lineage)


@run_async(timeout=60)
async def test_mcpcore_client_calls_the_sdk_sse_server(sdk_http_servers: Callable[[str], str]) -> None:
    url = sdk_http_servers("--sse-transport")
    assert url.endswith("/sse")
    for transport in ("sse", "auto"):
        async with await bounded(Client.connect_http(url, transport=transport, timeout=20), 30) as client:
            assert client.lineage == "legacy"
            assert (await client.call_tool("echo", {"text": transport})).text == transport
            assert (await client.call_tool("add", {"a": 2, "b": 3})).data in ({"sum": 5.0}, '{"sum":5.0}')
