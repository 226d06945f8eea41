"""DPoP end to end from Python with a real authorization server (issue 49): Keycloak 26 (the
realm of tests/interop/keycloak, fetched by the test command; MCPCORE_KEYCLOAK and
MCPCORE_KEYCLOAK_JAVA_HOME say where it and its Java are) issues client-credentials tokens to
``OAuth(grant="client_credentials")``. A Python server with ``Auth(dpop="required")`` gets a
token bound to the client's key (``cnf.jkt``) and a proof on every request; the same client
gets a plain bearer token from a server that takes only bearer tokens; a client with
``dpop=False`` is refused by the DPoP-required server. tests/rust/dpop_keycloak.rs is the Rust
side of the same checks."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, Optional

import pytest

from mcpcore import Auth, AuthError, Client, Context, McpError, OAuth, Server

from conftest import REPO, TARGET, run_async

VERSION = "26.4.2"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Keycloak:
    """``kc.sh start-dev`` with the test realm imported, on a free loopback port."""

    def __init__(self) -> None:
        home = Path(os.environ.get("MCPCORE_KEYCLOAK") or TARGET / "peers" / f"keycloak-{VERSION}")
        if not (home / "bin" / "kc.sh").exists():
            pytest.fail(f"Keycloak is missing at {home} (scripts/test.sh fetches it; or set MCPCORE_KEYCLOAK)")
        java = os.environ.get("MCPCORE_KEYCLOAK_JAVA_HOME") or os.environ.get("JAVA_HOME")
        if not java and Path("/usr/lib/jvm/temurin-25-jdk-amd64").exists():
            java = "/usr/lib/jvm/temurin-25-jdk-amd64"
        if not java:
            pytest.fail("Keycloak needs Java 21+: set MCPCORE_KEYCLOAK_JAVA_HOME")
        (home / "data" / "import").mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / "tests" / "interop" / "keycloak" / "realm-mcp.json", home / "data" / "import")
        port = free_port()
        self.proc = subprocess.Popen(
            [str(home / "bin" / "kc.sh"), "start-dev", "--import-realm", "--db=dev-mem",
             "--http-host=127.0.0.1", f"--http-port={port}"],
            env={**os.environ, "JAVA_HOME": java}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        self.issuer = f"http://127.0.0.1:{port}/realms/mcp"
        self.jwks = f"{self.issuer}/protocol/openid-connect/certs"
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{self.issuer}/.well-known/openid-configuration", timeout=2):
                    return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.close()
                    pytest.fail("Keycloak did not start within 3 minutes")
                time.sleep(0.5)

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def keycloak() -> Iterator[Keycloak]:
    kc = Keycloak()
    yield kc
    kc.close()


def whoami_server() -> Server:
    server = Server("dpop-keycloak-python", "0.1.0")

    @server.tool()
    def whoami(ctx: Context) -> Dict[str, Any]:
        """The token's client and its key binding, as this server verified them."""
        identity = ctx.auth
        assert identity is not None
        return {"azp": identity.claims.get("azp"), "cnf": identity.claims.get("cnf")}

    return server


async def call_whoami(url: str, dpop: bool) -> Dict[str, Any]:
    oauth = OAuth(grant="client_credentials", client_id="gateway", client_secret="gateway-secret", dpop=dpop)
    async with await Client.connect_http(url, auth=oauth) as client:
        result = await client.call_tool("whoami", {})
        token = await oauth.tokens(url)
        assert token is not None
        return {"result": result.structured_content, "token_type": token["token_type"]}


async def serve(kc: Keycloak, dpop: str) -> Any:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    auth = Auth(jwks_url=kc.jwks, issuer=kc.issuer, audience="upstream", resource=url, dpop=dpop)
    return await whoami_server().serve_http(port=port, auth=auth), url


@run_async(timeout=120)
async def test_keycloak_binds_the_python_clients_token_for_a_dpop_required_python_server(keycloak: Keycloak) -> None:
    serving, url = await serve(keycloak, "required")
    try:
        got = await call_whoami(url, dpop=True)
        assert got["token_type"] == "DPoP", got
        assert got["result"]["azp"] == "gateway", got
        assert isinstance(got["result"]["cnf"], dict) and len(got["result"]["cnf"]["jkt"]) == 43, got
        # A client that never proves a key gets a bearer token, which this server refuses.
        with pytest.raises((AuthError, McpError)):
            await call_whoami(url, dpop=False)
    finally:
        await serving.shutdown()


@run_async(timeout=120)
async def test_the_same_client_gets_a_bearer_token_for_a_server_without_dpop(keycloak: Keycloak) -> None:
    serving, url = await serve(keycloak, "off")
    try:
        got = await call_whoami(url, dpop=True)
        assert got["token_type"].lower() == "bearer", got
        assert got["result"]["cnf"] is None, got
    finally:
        await serving.shutdown()
