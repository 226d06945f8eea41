"""Protected servers from Python: ``Server.serve_http(auth=Auth(...))`` against a real
authorization server (``oauth2-mock-server`` from npm, driven by tests/interop/oauth/issuer.mjs
over stdin to mint exactly the tokens each test needs): the 401 challenge and the PRM, the
per-identity catalogue (``add`` needs ``mcp:add``, hidden and refused like an unknown tool
without it), ``ctx.auth`` in handlers, a host ``verify`` callable and its refusal,
examples/python/echo_server.py with ``--auth-*``, and tasks and resource subscriptions owned
per identity."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import urllib.error
import urllib.request
from typing import Any, Dict, Iterator, Optional, Tuple

import pytest

from mcpcore import Auth, AuthError, Client, Context, Identity, McpError, ResourceNotFound, Server, TokenRefused

from conftest import EXAMPLES, PY, REPO, Spawned, bounded, run_async, rust_bin

ISSUER_JS = REPO / "tests" / "interop" / "oauth" / "issuer.mjs"


class Issuer:
    """tests/interop/oauth/issuer.mjs: one JSON command per stdin line, one answer per line."""

    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None:
            pytest.fail("node is needed for oauth2-mock-server (npm ci in tests/interop/oauth)")
        self.proc = subprocess.Popen([node, str(ISSUER_JS)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.startswith("READY "), f"issuer.mjs said {line!r} (npm ci in tests/interop/oauth?)"
        self.url = line[len("READY "):].strip()
        self.jwks = f"{self.url}/jwks"

    def token(self, aud: str, scope: str = "", **extra: Any) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"cmd": "token", "aud": aud, "scope": scope, **extra}) + "\n")
        answer = json.loads(self.proc.stdout.readline())
        assert "token" in answer, answer
        return str(answer["token"])

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()  # it exits when stdin closes
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    i = Issuer()
    yield i
    i.close()


def protected_server() -> Server:
    server = Server("protected-python", "0.1.0")

    @server.tool()
    def echo(text: str) -> str:
        """Returns the text unchanged."""
        return text

    @server.tool()
    def add(a: float, b: float) -> float:
        """Adds two numbers."""
        return a + b

    @server.tool()
    async def whoami(ctx: Context) -> Dict[str, Any]:
        """The caller, as the server sees it."""
        who = ctx.auth
        assert who is not None
        return {"subject": who.subject, "scopes": list(who.scopes), "client_id": who.client_id,
                "iss": who.claims.get("iss"), "token_seen": ctx._call.header("authorization")}

    return server


def post(url: str, token: Optional[str]) -> Tuple[int, Dict[str, str], Any]:
    """A raw 2026-07-28-style POST (tools/list), for the HTTP answers."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2025-11-25"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read() or b"null")


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def tool_names(client: Client) -> set:
    return {t.name for t in await client.list_tools()}


async def check_contract(url: str, issuer: Issuer) -> None:
    """The example contract: 401 + PRM without a token; echo for any valid token; add only with
    mcp:add (hidden from tools/list and refused like an unknown tool otherwise)."""
    status, headers, body = await bounded(asyncio_to_thread(post, url, None))
    assert status == 401, (status, body)
    challenge = {k.lower(): v for k, v in headers.items()}["www-authenticate"]
    prm_url = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    assert challenge.startswith("Bearer ") and f'resource_metadata="{prm_url}"' in challenge, challenge
    prm = get_json(prm_url)
    assert prm["resource"] == url and prm["authorization_servers"] == [issuer.url], prm
    assert "mcp:add" in prm["scopes_supported"], prm

    status, headers, body = await bounded(asyncio_to_thread(post, url, "not-a-jwt"))
    assert status == 401 and body["error"] == "invalid_token", (status, body)
    wrong_aud = issuer.token("http://127.0.0.1:1/other", "mcp:add")
    status, _, body = await bounded(asyncio_to_thread(post, url, wrong_aud))
    assert status == 401 and body["error"] == "invalid_token", (status, body)

    for lineage in ("modern", "legacy"):
        plain = issuer.token(url, "")
        async with await Client.connect_http(url, bearer_token=plain, lineage=lineage) as c:
            names = await tool_names(c)
            assert "echo" in names and "add" not in names, names
            assert (await c.call_tool("echo", {"text": "hi"})).data == "hi"
            with pytest.raises(McpError) as hidden:
                await c.call_tool("add", {"a": 1, "b": 2})
            with pytest.raises(McpError) as unknown:
                await c.call_tool("nope", {"a": 1, "b": 2})
            assert hidden.value.code == unknown.value.code == -32602, (hidden.value, unknown.value)
            assert str(hidden.value).replace("add", "nope") == str(unknown.value)

        scoped = issuer.token(url, "mcp:add")
        async with await Client.connect_http(url, bearer_token=scoped, lineage=lineage) as c:
            assert {"echo", "add"} <= await tool_names(c)
            result = await c.call_tool("add", {"a": 2, "b": 3})
            assert not result.is_error and "5" in json.dumps(result.structured_content or result.data)


async def asyncio_to_thread(f: Any, *args: Any) -> Any:
    import asyncio

    return await asyncio.to_thread(f, *args)


@run_async(timeout=60)
async def test_jwt_protected_server_has_a_per_identity_catalogue_and_handlers_see_the_caller(
    issuer: Issuer,
) -> None:
    server = protected_server()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    auth = Auth(jwks_url=issuer.jwks, issuer=issuer.url, audience=url, tool_scopes={"add": ["mcp:add"]})
    assert auth.metadata_url == f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
    serving = await server.serve_http(port=port, auth=auth)
    try:
        assert serving.url == url
        await check_contract(url, issuer)
        token = issuer.token(url, "mcp:add profile", sub="alice", client_id="app-7")
        async with await Client.connect_http(url, bearer_token=token) as c:
            who = (await c.call_tool("whoami", {})).structured_content
        assert who is not None
        assert who["subject"] == "alice" and who["client_id"] == "app-7" and who["iss"] == issuer.url, who
        assert sorted(who["scopes"]) == ["mcp:add", "profile"], who
        assert who["token_seen"] is None, "the bearer token must not reach handlers"
    finally:
        await serving.shutdown()


@run_async(timeout=60)
async def test_a_host_verify_callable_decides_and_its_refusal_is_a_401() -> None:
    seen = []

    async def verify(token: str) -> Optional[Identity]:
        seen.append(token)
        if token == "ops-token":
            return Identity(subject="ops", scopes=("mcp:add",), client_id="cli", claims={"team": "sre"})
        if token == "guest-token":
            return Identity(subject="guest")
        if token == "down":
            raise TokenRefused("directory unreachable", kind="unavailable")
        if token == "revoked":
            raise TokenRefused("revoked at 12:00")
        return None

    server = protected_server()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    auth = Auth(verify=verify, resource=url, authorization_servers=["https://as.example"],
                tool_scopes={"add": ["mcp:add"]})
    serving = await server.serve_http(port=port, auth=auth)
    try:
        status, headers, body = await asyncio_to_thread(post, url, "revoked")
        assert status == 401 and body == {"error": "invalid_token", "error_description": "revoked at 12:00"}
        challenge = {k.lower(): v for k, v in headers.items()}["www-authenticate"]
        assert 'error="invalid_token"' in challenge and "resource_metadata=" in challenge, challenge
        status, _, body = await asyncio_to_thread(post, url, "who-knows")
        assert status == 401 and body["error"] == "invalid_token", body
        status, _, body = await asyncio_to_thread(post, url, "down")
        assert status == 503 and body["error_description"] == "directory unreachable", (status, body)
        with pytest.raises(AuthError) as refused:
            async with await Client.connect_http(url, bearer_token="who-knows"):
                pass
        assert refused.value.http_status == 401

        async with await Client.connect_http(url, bearer_token="guest-token") as c:
            assert "add" not in await tool_names(c)
            who = (await c.call_tool("whoami", {})).structured_content
            assert who is not None and who["subject"] == "guest" and who["scopes"] == [], who
        async with await Client.connect_http(url, bearer_token="ops-token") as c:
            assert (await c.call_tool("add", {"a": 1, "b": 2})).structured_content == {"result": 3.0}
            who = (await c.call_tool("whoami", {})).structured_content
            assert who is not None and (who["subject"], who["client_id"]) == ("ops", "cli"), who
        assert {"revoked", "who-knows", "down", "guest-token", "ops-token"} <= set(seen)
    finally:
        await serving.shutdown()


def test_auth_settings_are_checked() -> None:
    with pytest.raises(McpError, match="resource"):
        Auth(verify=lambda t: None, authorization_servers=["https://as"])
    with pytest.raises(McpError, match="jwks_url"):
        Auth(issuer="https://as", audience="http://127.0.0.1:1/mcp")
    with pytest.raises(McpError, match="scope_mode"):
        Auth(verify=lambda t: None, resource="http://x/mcp", issuer="https://as", scope_mode="loose")
    with pytest.raises(ValueError):
        TokenRefused("x", kind="nope")


@run_async(timeout=90)
async def test_example_echo_server_with_auth_flags(issuer: Issuer) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    child = Spawned([PY, EXAMPLES / "echo_server.py", "--http", f"127.0.0.1:{port}", "--auth-jwks", issuer.jwks,
                     "--auth-issuer", issuer.url, "--auth-audience", url], "listening on ")
    try:
        assert child.url == url
        await check_contract(url, issuer)
    finally:
        child.stop()
    half = subprocess.run([PY, str(EXAMPLES / "echo_server.py"), "--http", "127.0.0.1:0", "--auth-jwks",
                           issuer.jwks], capture_output=True, text=True, timeout=30)
    assert half.returncode != 0 and "go together" in half.stderr, half.stderr


@run_async(timeout=90)
async def test_a_stdio_server_takes_its_token_from_the_environment(issuer: Issuer) -> None:
    """2025-11-25 basic/authorization: stdio servers take credentials from the environment.
    examples/python/echo_server.py with ``--auth-*`` and no ``--http`` reads MCP_ACCESS_TOKEN
    once; the same scopes and catalogue as over HTTP; a missing or refused token stops it."""
    aud = "https://mcp.example/stdio"
    argv = [PY, str(EXAMPLES / "echo_server.py"), "--auth-jwks", issuer.jwks, "--auth-issuer", issuer.url,
            "--auth-audience", aud]
    for lineage in ("modern", "legacy"):
        reader = issuer.token(aud, "mcp:read")
        async with await Client.connect_stdio(argv, env={"MCP_ACCESS_TOKEN": reader}, lineage=lineage) as c:
            assert [t.name for t in await c.list_tools()] == ["echo"], lineage
            with pytest.raises(McpError, match="Unknown tool"):
                await c.call_tool("add", {"a": 1, "b": 2})
            assert (await c.call_tool("echo", {"text": "from the environment"})).text == "from the environment"
        adder = issuer.token(aud, "mcp:read mcp:add")
        async with await Client.connect_stdio(argv, env={"MCP_ACCESS_TOKEN": adder}, lineage=lineage) as c:
            assert sorted(t.name for t in await c.list_tools()) == ["add", "echo"], lineage
            assert (await c.call_tool("add", {"a": 2, "b": 3})).structured_content == {"sum": 5}
    for env, why in (({}, "MCP_ACCESS_TOKEN"), ({"MCP_ACCESS_TOKEN": "not-a-jwt"}, "invalid_token")):
        ran = subprocess.run(argv, input="", capture_output=True, text=True, timeout=60,
                             env={**os.environ, **env} if env else {k: v for k, v in os.environ.items()
                                                                     if k != "MCP_ACCESS_TOKEN"})
        assert ran.returncode == 1 and why in ran.stderr, (env, ran.returncode, ran.stderr)


@run_async(timeout=60)
async def test_a_sync_verify_works_and_a_crashing_one_is_a_503() -> None:
    def verify(token: str) -> Optional[Identity]:
        if token == "boom":
            raise RuntimeError("the directory crashed")
        return Identity(subject="sync-user") if token == "ok" else None

    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    serving = await protected_server().serve_http(
        port=port, auth=Auth(verify=verify, resource=url, authorization_servers=["https://as.example"]))
    try:
        status, _, body = await asyncio_to_thread(post, url, "boom")
        assert status == 503 and "the directory crashed" in body["error_description"], (status, body)
        async with await Client.connect_http(url, bearer_token="ok") as c:
            who = (await c.call_tool("whoami", {})).structured_content
            assert who is not None and who["subject"] == "sync-user", who
    finally:
        await serving.shutdown()


TASKS_EXT = "io.modelcontextprotocol/tasks"


def task_call(url: str, token: str, method: str, task_id: str) -> Tuple[int, Any]:
    """A raw 2026-07-28 task method (the Tasks extension declared) as ``token``'s holder: the
    HTTP status and the JSON-RPC error, with ``task_id`` written as ``<id>``."""
    params: Dict[str, Any] = {"taskId": task_id, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS_EXT: {}}}}}
    if method == "tasks/update":
        params["inputResponses"] = {"k": {"action": "decline"}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": task_id,
               "authorization": f"Bearer {token}"}
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, text = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode()
    return status, json.loads(text.replace(task_id, "<id>"))["error"]


@run_async(timeout=90)
async def test_tasks_and_subscriptions_belong_to_their_identity(issuer: Issuer, spawn: Any) -> None:
    """A task is its creator's: another identity's tasks/get, tasks/update and tasks/cancel
    are answered exactly as for an unknown task (tests/rust/bin/fixture_server --tasks, a Rust
    server: Python tools have no task mode yet). A resource the caller's catalogue hides cannot
    be subscribed to, exactly like an unknown one, on both lineages."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    spawn([rust_bin("fixture_server"), "--tasks", "--http", f"127.0.0.1:{port}", "--auth-jwks", issuer.jwks,
           "--auth-issuer", issuer.url, "--auth-audience", url])
    alice, bob = issuer.token(url, "profile", sub="alice"), issuer.token(url, "profile", sub="bob")
    async with await bounded(Client.connect_http(url, bearer_token=alice, lineage="modern")) as c:
        task = await c.call_tool("task_sleep", {"ms": 60_000}, task=True)
        assert task.id is not None
        unknown = "".join("1" if ch == "0" else "0" for ch in task.id)
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            theirs = await asyncio_to_thread(task_call, url, bob, method, task.id)
            assert theirs == await asyncio_to_thread(task_call, url, bob, method, unknown), method
            assert theirs[1]["code"] == -32602, theirs
        assert (await task.status())["status"] == "working", "bob's cancel did nothing"
        await task.cancel()

    server = Server("owned-resources", "0.1.0")

    @server.resource("mem://open")
    def open_memo() -> str:
        return "o"

    @server.resource("mem://secret")
    def secret_memo() -> str:
        return "s"

    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    auth = Auth(jwks_url=issuer.jwks, issuer=issuer.url, audience=url, resource_scopes={"mem://secret": ["r:secret"]})
    serving = await server.serve_http(port=port, auth=auth)
    try:
        plain, allowed = issuer.token(url, "profile", sub="bob"), issuer.token(url, "r:secret", sub="alice")
        for lineage in ("legacy", "modern"):
            async with await bounded(Client.connect_http(url, bearer_token=plain, lineage=lineage)) as c:
                refusals = []
                for uri in ("mem://secret", "mem://nothing"):
                    with pytest.raises(ResourceNotFound) as e:
                        await c.subscribe(uri)
                    refusals.append((e.value.code, e.value.message.replace(uri, "<uri>")))
                assert refusals[0] == refusals[1], f"{lineage}: an oracle: {refusals}"
                await c.subscribe("mem://open")
            async with await bounded(Client.connect_http(url, bearer_token=allowed, lineage=lineage)) as c:
                await c.subscribe("mem://secret")
    finally:
        await serving.shutdown()


@run_async(timeout=60)
async def test_visibility_rules_show_each_caller_the_tools_its_scopes_and_claims_allow(issuer: Issuer) -> None:
    server = protected_server()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    auth = Auth(jwks_url=issuer.jwks, issuer=issuer.url, audience=url, visibility=[
        {"tools": ["add"], "allow": {"claims": {"groups": ["finance", "admins"]}}},
        {"tools": ["who*"], "deny": {"claims": {"role": "guest"}}},
    ])
    serving = await server.serve_http(port=port, auth=auth)
    try:
        guest = issuer.token(url, "", claims={"role": "guest"})
        finance = issuer.token(url, "", claims={"groups": ["staff", "finance"]})
        async with await Client.connect_http(url, bearer_token=guest) as c:
            assert await tool_names(c) == {"echo"}
            with pytest.raises(McpError) as hidden:
                await c.call_tool("whoami", {})
            assert hidden.value.code == -32602 and "Unknown tool" in str(hidden.value)
        async with await Client.connect_http(url, bearer_token=finance) as c:
            assert await tool_names(c) == {"echo", "add", "whoami"}
            assert (await c.call_tool("add", {"a": 1, "b": 2})).structured_content == {"result": 3.0}
    finally:
        await serving.shutdown()
    with pytest.raises(McpError, match=r"visibility\[0\]: give exactly one"):
        Auth(jwks_url=issuer.jwks, issuer=issuer.url, audience=url, visibility=[{"tools": ["a"]}])


@run_async(timeout=30)
async def test_a_gateway_config_with_auth_says_where_the_auth_goes() -> None:
    from mcpcore import Gateway

    config = {"mcpServers": {"echo": {"command": "true"}},
              "auth": {"jwksUrl": "http://127.0.0.1:9/jwks", "issuer": "http://127.0.0.1:9",
                       "resource": "http://127.0.0.1:8/mcp"}}
    with pytest.raises(McpError, match=r"serve_http\(auth="):
        await Gateway(config).start()


@run_async(timeout=60)
async def test_dpop_allowed_is_in_the_prm_and_a_dpop_bound_token_is_never_a_bearer_token() -> None:
    """``Auth(dpop=...)`` reaches the core: the PRM lists the proof algorithms, a token whose
    claims bind it to a key (``cnf.jkt``) is refused as a bearer token, a plain one still works
    (the proof checks themselves are the core's: tests/rust/auth_dpop.rs)."""

    def verify(token: str) -> Optional[Identity]:
        if token == "bound":
            return Identity(subject="alice", claims={"cnf": {"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}})
        return Identity(subject="bob") if token == "plain" else None

    with pytest.raises(McpError, match="dpop must be 'off', 'allowed' or 'required'"):
        Auth(verify=verify, resource="http://x/mcp", issuer="https://as", dpop="on")
    server = protected_server()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    auth = Auth(verify=verify, resource=url, authorization_servers=["https://as.example"], dpop="allowed")
    serving = await server.serve_http(port=port, auth=auth)
    try:
        assert auth.metadata_url is not None
        prm = await asyncio_to_thread(get_json, auth.metadata_url)
        assert prm["dpop_signing_alg_values_supported"][0] == "ES256", prm
        assert "dpop_bound_access_tokens_required" not in prm, prm
        status, headers, body = await asyncio_to_thread(post, url, "bound")
        assert status == 401 and body["error"] == "invalid_token", (status, body)
        assert "DPoP-bound" in body["error_description"], body
        status, headers, _ = await asyncio_to_thread(post, url, None)
        challenge = {k.lower(): v for k, v in headers.items()}["www-authenticate"]
        assert status == 401 and challenge.startswith("Bearer "), (status, challenge)
        async with await Client.connect_http(url, bearer_token="plain") as c:
            assert "echo" in await tool_names(c)
    finally:
        await serving.shutdown()
