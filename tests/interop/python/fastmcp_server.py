"""A fastmcp (PyPI, pinned in bindings-python/requirements-test.txt) server whose tools ask the
client for input, written as fastmcp documents it for each lineage:

- legacy sessions (2025-11-25 ...): ``await ctx.elicit(...)`` and the SDK session's
  ``create_message`` (server-initiated requests the client answers);
- 2026-07-28: the guard pattern (SEP-2322): the tool returns an ``InputRequiredResult`` with
  its ``input_requests`` and reads ``ctx.input_responses`` when the client retries.

Tools: ``ask_name`` (elicitation) -> "Hello, NAME!", ``ask_model`` (sampling) -> "The model said:
TEXT", ``echo(text)`` and ``add(a, b)`` (for the validation tests).

    python fastmcp_server.py                    # stdio
    python fastmcp_server.py --http             # Streamable HTTP on 127.0.0.1, a free port;
                                                # prints "READY http://127.0.0.1:PORT/mcp"
"""

from __future__ import annotations

import socket
import sys
from typing import Any

import mcp_types
from fastmcp import Context, FastMCP

server = FastMCP("fastmcp-peer")

NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def modern(ctx: Context) -> bool:
    rc = ctx.request_context
    return rc is not None and rc.protocol_version == "2026-07-28"


def answer(ctx: Context, key: str) -> Any:
    responses = ctx.input_responses or {}
    got = responses.get(key)
    return got.model_dump(by_alias=True, exclude_none=True) if hasattr(got, "model_dump") else got


@server.tool
async def ask_name(ctx: Context) -> Any:
    """Asks the user's name."""
    if modern(ctx):
        got = answer(ctx, "name")
        if got is None:
            request = mcp_types.ElicitRequest(
                params=mcp_types.ElicitRequestFormParams(message="Your name?", requested_schema=NAME_SCHEMA)
            )
            return mcp_types.InputRequiredResult(input_requests={"name": request})
        return f"Hello, {got['content']['name']}!"
    result = await ctx.elicit("Your name?", str)
    return f"Hello, {result.data}!" if result.action == "accept" else f"no name ({result.action})"


@server.tool
async def ask_model(ctx: Context) -> Any:
    """Asks the client's model a question."""
    message = mcp_types.SamplingMessage(role="user", content=mcp_types.TextContent(type="text", text="Capital of France?"))
    if modern(ctx):
        got = answer(ctx, "capital")
        if got is None:
            request = mcp_types.CreateMessageRequest(
                params=mcp_types.CreateMessageRequestParams(messages=[message], max_tokens=50)
            )
            return mcp_types.InputRequiredResult(input_requests={"capital": request})
        return f"The model said: {got['content']['text']}"
    result = await ctx.session.create_message(messages=[message], max_tokens=50, related_request_id=ctx.request_id)
    return f"The model said: {result.content.text}"


@server.tool
def echo(text: str) -> str:
    """Returns the text unchanged."""
    return text


@server.tool
def add(a: float, b: float) -> float:
    """Adds two numbers."""
    return a + b


if __name__ == "__main__":
    if "--http" in sys.argv:
        import uvicorn

        # Bound and listening before READY: a client may connect at once (uvicorn accepts later).
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        print(f"READY http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
        config = uvicorn.Config(server.http_app(path="/mcp"), log_level="error")
        uvicorn.Server(config).run(sockets=[sock])
    else:
        server.run(show_banner=False, log_level="ERROR")
