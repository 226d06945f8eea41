#!/usr/bin/env python3
"""The official Python SDK's OAuth client (pinned ``mcp==2.3.0``: ``OAuthClientProvider``)
through the whole flow against a protected MCP server.

On the server's 401 the SDK reads the Protected Resource Metadata, the authorization server's
metadata, and runs the authorization code grant with PKCE and ``resource``; the user step is
scripted: the redirect handler GETs the authorization URL (the test's authorization server
approves at once and redirects to the callback) and hands the code to the callback handler.
The client is pre-registered (``--client-id``, public, ``token_endpoint_auth_method`` none).

Usage: sdk_oauth_client.py --client-id ID URL

Then tools/list, tools/call echo {"text": "hi"} and, when listed, add {"a": 2, "b": 3}, and ONE
JSON line on stdout: {"tools": [sorted names], "echo": "...", "add": <structuredContent>|null,
"scope": "<granted scope>"}. Exit 1 with one line on stderr on failure.
"""

from __future__ import annotations

import argparse
import json
import sys
from urllib.parse import parse_qs, urlparse

import anyio
import httpx2
import mcp_types as types
from mcp import ClientSession
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

REDIRECT = "http://127.0.0.1:9/callback"


class Memory:
    """The SDK's TokenStorage protocol, in memory, holding the pre-registered client."""

    def __init__(self, client: OAuthClientInformationFull) -> None:
        self.client = client
        self.tokens: OAuthToken | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def run(url: str, client_id: str) -> dict:
    redirected: dict[str, str] = {}

    async def redirect_handler(authorization_url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=False) as http:
            resp = await http.get(authorization_url)
        location = resp.headers.get("location", "")
        query = parse_qs(urlparse(location).query)
        if "code" not in query:
            raise RuntimeError(f"the authorization server did not redirect with a code: {resp.status_code} {location}")
        redirected["code"] = query["code"][0]
        redirected["state"] = query.get("state", [None])[0]

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=redirected["code"], state=redirected["state"])

    metadata = OAuthClientMetadata(
        redirect_uris=[REDIRECT], token_endpoint_auth_method="none", grant_types=["authorization_code", "refresh_token"]
    )
    client = OAuthClientInformationFull(client_id=client_id, **metadata.model_dump(exclude_none=True))
    storage = Memory(client)
    provider = OAuthClientProvider(url, metadata, storage, redirect_handler, callback_handler)
    async with httpx2.AsyncClient(auth=provider, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = sorted(t.name for t in (await session.list_tools()).tools)
                echo = await session.call_tool("echo", {"text": "hi"})
                text = echo.content[0].text if echo.content and isinstance(echo.content[0], types.TextContent) else None
                add = None
                if "add" in tools:
                    add = (await session.call_tool("add", {"a": 2, "b": 3})).structured_content
    return {"tools": tools, "echo": text, "add": add, "scope": storage.tokens.scope if storage.tokens else None}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--client-id", required=True)
    parser.add_argument("url")
    args = parser.parse_args()
    try:
        out = anyio.run(run, args.url, args.client_id)
    except BaseException as e:  # noqa: BLE001 - one line for the test, whatever failed
        detail = " ".join(repr(e).split())
        print(f"sdk_oauth_client: error: {detail}", file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
