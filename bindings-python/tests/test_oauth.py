"""OAuth from Python: ``Client.connect_http(url, auth=OAuth(...))`` against a real authorization
server (``oauth2-mock-server`` from npm, tests/interop/oauth/mock_as.mjs) in front of the
official Python SDK's protected server (tests/interop/python/sdk_auth_server.py: JWT access
tokens checked against the AS's JWKS, audience and scopes), and in front of a protected server
written in Python. The user step is a scripted async hook; tokens go to a host-written async
token store."""

from __future__ import annotations

import asyncio
import json
import queue
import shutil
import urllib.error
import urllib.request
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

from mcpcore import Auth, AuthError, Client, Context, MemoryTokenStore, OAuth, Server

from conftest import INTEROP, PY, REPO, Spawned, bounded, run_async

pytest.importorskip("mcp", reason="the official SDK (mcp==2.3.0) is not installed")

MOCK_AS = REPO / "tests" / "interop" / "oauth" / "mock_as.mjs"
AUTH_SERVER = INTEROP / "sdk_auth_server.py"
REDIRECT_URI = "http://127.0.0.1:9/callback"  # nothing listens: the hook reads the redirect


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _location(url: str) -> str:
    """What a browser would be sent to: the authorization endpoint's redirect (the mock AS
    approves at once)."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(url, timeout=10)
    except urllib.error.HTTPError as e:
        if e.code in (301, 302, 303, 307, 308):
            return e.headers["Location"]
        raise
    raise AssertionError("the authorization server did not redirect")


class Peers:
    def __init__(self, asrv: Spawned, server: Spawned) -> None:
        self.asrv, self.server = asrv, server
        self.issuer, self.url = asrv.url, server.url
        self.events: List[Dict[str, Any]] = []

    def drain(self, kind: str) -> List[Dict[str, Any]]:
        while True:
            try:
                line = self.asrv._lines.get(timeout=0.2)
            except queue.Empty:
                break
            if line and line.startswith("EVENT "):
                self.events.append(json.loads(line[len("EVENT "):]))
        return [e for e in self.events if e["event"] == kind]


@pytest.fixture(scope="module")
def peers() -> Iterator[Peers]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed for the OAuth authorization server (tests/interop/oauth)")
    asrv = Spawned([node, MOCK_AS], "READY ")
    server = Spawned([PY, AUTH_SERVER, "--issuer", asrv.url, "--scope", "mcp:read"], "READY ", timeout=60)
    yield Peers(asrv, server)
    server.stop()
    asrv.stop()


class AsyncStore:
    """A host token store with async methods, recording what it is asked."""

    def __init__(self) -> None:
        self.inner = MemoryTokenStore()
        self.calls: List[Tuple[str, str]] = []

    async def load_tokens(self, server: str) -> Optional[Dict[str, Any]]:
        self.calls.append(("load_tokens", server))
        await asyncio.sleep(0)
        return self.inner.load_tokens(server)

    async def save_tokens(self, server: str, tokens: Optional[Dict[str, Any]]) -> None:
        self.calls.append(("save_tokens", server))
        self.inner.save_tokens(server, tokens)

    async def load_client(self, issuer: str) -> Optional[Dict[str, Any]]:
        return self.inner.load_client(issuer)

    async def save_client(self, issuer: str, client: Optional[Dict[str, Any]]) -> None:
        self.inner.save_client(issuer, client)


@run_async(timeout=90)
async def test_the_flow_with_an_async_hook_and_an_async_store(peers: Peers) -> None:
    seen: List[str] = []

    async def on_authorize(url: str) -> str:
        seen.append(url)
        return await asyncio.to_thread(_location, url)

    store = AsyncStore()
    oauth = OAuth(on_authorize=on_authorize, redirect_uri=REDIRECT_URI, client_id="py-tests", store=store)
    before = len(peers.drain("authorize"))
    async with await bounded(Client.connect_http(peers.url, auth=oauth), 60) as client:
        result = await client.call_tool("echo", {"text": "authorized"})
        assert result.text == "authorized"
    assert len(seen) == 1 and "code_challenge_method=S256" in seen[0]
    authorize = peers.drain("authorize")[before:]
    assert [(a["client_id"], a["scope"], a["resource"]) for a in authorize] == [("py-tests", "mcp:read", peers.url)]
    saved = store.inner.tokens[peers.url]
    assert saved["issuer"] == peers.issuer and saved["token_type"] == "Bearer" and saved["refresh_token"]
    assert ("save_tokens", peers.url) in store.calls
    assert (await oauth.tokens(peers.url))["access_token"] == saved["access_token"]

    # A new client (a restart) with the same store: the stored token, no user step.
    again = OAuth(on_authorize=on_authorize, redirect_uri=REDIRECT_URI, client_id="py-tests", store=store)
    async with await bounded(Client.connect_http(peers.url, auth=again, lineage="legacy"), 60) as client:
        assert (await client.call_tool("echo", {"text": "again"})).text == "again"
    assert len(seen) == 1
    assert len(peers.drain("authorize")) == before + 1


@run_async(timeout=90)
async def test_auth_failures_are_typed(peers: Peers) -> None:
    with pytest.raises(AuthError) as refused:
        await bounded(Client.connect_http(peers.url), 30)
    assert refused.value.http_status == 401 and refused.value.error == "invalid_token"

    async def gives_up(url: str) -> str:
        raise RuntimeError("the user closed the window")

    oauth = OAuth(on_authorize=gives_up, redirect_uri=REDIRECT_URI, client_id="py-tests")
    with pytest.raises(AuthError) as failed:
        await bounded(Client.connect_http(peers.url, auth=oauth), 30)
    assert failed.value.error == "interaction_failed"
    assert "the user closed the window" in (failed.value.error_description or "")

    def wrong_url(url: str) -> str:  # a sync hook works too
        return REDIRECT_URI + "?code=x&state=not-ours"

    oauth = OAuth(on_authorize=wrong_url, redirect_uri=REDIRECT_URI, client_id="py-tests")
    with pytest.raises(AuthError) as forged:
        await bounded(Client.connect_http(peers.url, auth=oauth), 30)
    assert forged.value.error == "state_mismatch"


def test_bad_configuration_is_refused() -> None:
    from mcpcore import InvalidInput

    with pytest.raises(InvalidInput):
        OAuth(on_authorize=lambda u: u)  # no redirect_uri for the hook
    with pytest.raises(InvalidInput):
        OAuth(grant="jwt_bearer")  # no assertion


@run_async(timeout=90)
async def test_the_flow_against_a_protected_server_written_in_python(peers: Peers) -> None:
    """Both halves from Python: a ``Server.serve_http(auth=Auth(...))`` checking the mock
    authorization server's JWTs (``add`` needs ``mcp:add``), and the Python client doing the
    whole flow through a scripted hook (the PRM names the scope; the token's ``aud`` is the
    server's URL)."""
    from test_server_auth import free_port

    server = Server("protected-by-python", "0.1.0")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Adds two numbers."""
        return a + b

    @server.tool()
    def whoami(ctx: Context) -> str:
        """The caller's subject."""
        assert ctx.auth is not None
        return str(ctx.auth.subject)

    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    auth = Auth(jwks_url=f"{peers.issuer}/jwks", issuer=peers.issuer, audience=url,
                tool_scopes={"add": ["mcp:add"]}, scopes_supported=["mcp:add"])
    serving = await server.serve_http(port=port, auth=auth)
    try:
        seen: List[str] = []

        async def on_authorize(auth_url: str) -> str:
            seen.append(auth_url)
            return await asyncio.to_thread(_location, auth_url)

        oauth = OAuth(on_authorize=on_authorize, redirect_uri=REDIRECT_URI, client_id="py-both-halves")
        async with await bounded(Client.connect_http(url, auth=oauth), 60) as client:
            assert {t.name for t in await client.list_tools()} == {"add", "whoami"}
            assert (await client.call_tool("add", {"a": 2, "b": 3})).structured_content == {"result": 5.0}
            assert (await client.call_tool("whoami", {})).text, "the token names a subject"
        assert len(seen) == 1 and "scope=mcp%3Aadd" in seen[0] and "resource=" in seen[0], seen
    finally:
        await serving.shutdown()
