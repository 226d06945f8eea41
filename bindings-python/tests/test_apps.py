"""MCP Apps (SEP-1865) in Python: the Python example server with ``--apps`` (a real child on
stdio) serves ``show_echo`` bound to ``ui://echo/view.html``; the mcpcore Python client finds the
binding, reads the app and gets the text fallback on both lineages, and the official Python SDK
client (2.3.0, declaring itself an apps host) reads the same app; the registration rules."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mcpcore import Client, InvalidInput, ProtocolError, Server, apps_meta

from conftest import LINEAGES, PY, run_async

REPO = Path(__file__).resolve().parents[2]
ECHO = REPO / "examples" / "python" / "echo_server.py"
MIME = "text/html;profile=mcp-app"


@pytest.mark.parametrize("mode,version", LINEAGES)
def test_our_client_finds_reads_and_calls_the_python_echo_app(mode: str, version: str) -> None:
    @run_async
    async def go() -> None:
        async with await Client.connect_stdio(PY, [str(ECHO), "--apps"], protocol_version=version) as client:
            assert client.offers_apps()
            tools = {t.name: t for t in await client.list_tools()}
            assert tools["show_echo"].ui == {"resourceUri": "ui://echo/view.html"}
            assert tools["echo"].ui is None
            app = await client.read_app("ui://echo/view.html")
            assert app["uri"] == "ui://echo/view.html"
            assert app["html"].startswith("<!DOCTYPE html>") and "ui/initialize" in app["html"]
            assert app["meta"] == {"prefersBorder": True}
            result = await client.call_tool("show_echo", {"text": "hi"})
            assert result.text == "hi" and result.structured_content == {"text": "hi"}

    go()


@pytest.mark.parametrize("mode", ["modern", "legacy"])
def test_the_official_python_sdk_reads_our_python_app(mode: str) -> None:
    script = REPO / "tests" / "interop" / "python" / "sdk_apps_client.py"
    out = subprocess.run([PY, str(script), "--mode", mode, "--stdio", PY, str(ECHO), "--apps"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["app"] == {"uri": "ui://echo/view.html", "mimeType": MIME, "html": True,
                          "meta": {"prefersBorder": True}}
    assert got["fallback"] == ["hi from the python sdk"]


def test_apps_register_with_their_rules() -> None:
    server = Server("apps", "1")
    with pytest.raises(InvalidInput, match="ui://"):
        server.add_app("https://example.com/view.html", "<p>")
    server.add_app("ui://a/view.html", "<p>", csp={"connectDomains": ["https://api.example.com"]},
                   permissions=["camera"])

    @server.app("ui://b/view.html", "<p>b</p>", visibility=["app"])
    def refresh() -> str:
        return "refreshed"

    [tool] = server.registry.list_tools()
    assert tool.raw["_meta"] == apps_meta("ui://b/view.html", ["app"])
    listed = {r["uri"]: r for r in server.list_resources()}
    assert listed["ui://a/view.html"]["_meta"]["ui"] == {
        "csp": {"connectDomains": ["https://api.example.com"]}, "permissions": {"camera": {}}}
    assert listed["ui://b/view.html"]["mimeType"] == MIME


def test_reading_something_that_is_not_an_app_is_refused() -> None:
    @run_async
    async def go() -> None:
        server = Server("apps", "1")

        @server.resource("ui://plain/page.html", mime_type="text/html")
        def page() -> str:
            return "<p>not an app</p>"

        serving = await server.serve_http(port=0)
        try:
            async with await Client.connect_http(serving.url) as client:
                assert not client.offers_apps()
                with pytest.raises(ProtocolError, match="not an app"):
                    await client.read_app("ui://plain/page.html")
        finally:
            await serving.shutdown()

    go()
