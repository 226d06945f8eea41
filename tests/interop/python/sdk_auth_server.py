#!/usr/bin/env python3
"""A protected MCP server built with the official Python SDK (pinned ``mcp==2.3.0``), for the
OAuth interop tests of mcpcore's client.

It is the SDK's own resource-server support: ``MCPServer(token_verifier=..., auth=AuthSettings(...))``
serves the RFC 9728 Protected Resource Metadata at ``/.well-known/oauth-protected-resource/mcp``
(naming ``--issuer`` as the authorization server and ``--scope`` values as ``scopes_supported``),
answers 401 with ``WWW-Authenticate: Bearer ... resource_metadata=...`` without a valid token and
403 ``insufficient_scope`` when a required scope is missing. The token verifier checks the JWT
access tokens of the authorization server (``oauth2-mock-server`` in the tests) against its JWKS:
signature, ``iss``, ``aud`` (this server's URL, RFC 8707), ``exp``; the SDK then checks the
token's resource (``validate_token_resource``).

Tools: ``echo(text)`` and ``whoami()`` (the token's subject and scopes).

Usage: sdk_auth_server.py --issuer URL [--scope S]...   (prints ``READY http://127.0.0.1:PORT/mcp``)
"""

from __future__ import annotations

import argparse
import json
import logging
import socket
import sys
import urllib.request

import anyio
import jwt
import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

log = logging.getLogger("sdk_auth_server")


class JwksVerifier:
    """Verifies RS256 JWT access tokens against the authorization server's JWKS."""

    def __init__(self, issuer: str, audience: str) -> None:
        self.issuer = issuer
        self.audience = audience
        with urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration", timeout=10) as r:
            jwks_uri = json.load(r)["jwks_uri"]
        self.jwks = jwt.PyJWKClient(jwks_uri)

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            key = await anyio.to_thread.run_sync(self.jwks.get_signing_key_from_jwt, token)
            claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=self.audience, issuer=self.issuer)
        except jwt.PyJWTError as e:
            log.info("token refused: %s", e)
            return None
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id") or claims.get("azp") or claims.get("sub") or ""),
            scopes=str(claims.get("scope") or "").split(),
            expires_at=int(claims["exp"]),
            resource=self.audience,
            subject=claims.get("sub"),
            claims=claims,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--issuer", required=True, help="the authorization server's issuer URL")
    parser.add_argument("--scope", action="append", default=[], help="a required scope (repeatable)")
    parser.add_argument("--log-level", default="WARNING")
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(), format="sdk_auth_server: %(message)s")

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"

    server = MCPServer(
        "mcpcore-interop-python-sdk-auth-server",
        token_verifier=JwksVerifier(args.issuer, url),
        auth=AuthSettings(
            issuer_url=args.issuer,
            resource_server_url=url,
            required_scopes=args.scope or None,
            validate_token_resource=True,
        ),
    )

    @server.tool()
    def echo(text: str) -> str:
        """Return the given text unchanged."""
        return text

    @server.tool()
    def whoami() -> str:
        """The subject and scopes of the caller's token."""
        from mcp.server.auth.middleware.auth_context import get_access_token

        token = get_access_token()
        return json.dumps({"subject": token.subject if token else None, "scopes": token.scopes if token else []})

    app = server.streamable_http_app()
    config = uvicorn.Config(app, log_level=args.log_level.lower(), lifespan="on")
    uv = uvicorn.Server(config)

    async def serve() -> None:
        async with anyio.create_task_group() as tg:

            async def announce() -> None:
                while not uv.started:
                    if uv.should_exit:
                        return
                    await anyio.sleep(0.02)
                print(f"READY {url}", flush=True)

            tg.start_soon(announce)
            await uv.serve(sockets=[sock])
            tg.cancel_scope.cancel()

    anyio.run(serve)
    return 0


if __name__ == "__main__":
    sys.exit(main())
