#!/usr/bin/env python3
"""Resources / prompts / completion / input peer built with the official Python SDK (``mcp==2.3.0``).

Used by ``tests/rust/interop_features.rs`` to test the mcpcore client. High-level ``MCPServer``;
dual-era: the client's first request picks the era (stdio), or the request's headers do (HTTP).

Resources:
  text://greeting           text/plain "Hello from the Python SDK"
  bin://pixel               image/png, 4 bytes 89 50 4E 47 (blob)
  greet://{name}            template -> "Hello, {name}!"
  counter://value           text, the current counter (bumped by the ``touch`` tool)
  missing URIs              -> JSON-RPC -32602 (SDK's ResourceNotFoundError mapping, both eras)
Prompts:
  greet(name, style?)       one user text message
  rich()                    user: embedded resource text://greeting, then user: image (png)
Completion: ref/prompt greet, argument ``name``: names starting with the typed value
  (``context.arguments.style`` == "loud" upper-cases them).
Tools (``Resolve`` dependencies: legacy sends standalone requests mid-call, 2026-07-28 returns
``InputRequiredResult`` and resumes on the retry):
  ask_name                  elicits {name: string, age: integer default 42}; returns "name/age"
  sample                    sampling/createMessage "Say hi"; returns the sampled text
  roots                     roots/list; returns the root URIs joined by ","
  ask_twice                 elicits twice in sequence (two MRTR rounds on 2026-07-28)
  touch(uri)                bumps counter://value, then announces: legacy -> resources/updated to
                            the session (if it subscribed) + tools/list_changed; modern ->
                            ctx.notify_resource_updated / ctx.notify_tools_changed (listen streams)
  stats                     JSON object: requests served per method since start
Caching hints: every cacheable method gets ttlMs 60000, scope private (``cache_hints``).
Legacy ``resources/subscribe`` / ``unsubscribe`` are added on the low-level server (MCPServer has
no decorator for them).

Usage: sdk_resources_server.py [--http --port PORT]   (HTTP prints ``READY http://127.0.0.1:P/mcp``)
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections import Counter
from typing import Annotated, Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import Message, UserMessage
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.server.mcpserver.utilities.types import Image
from pydantic import BaseModel, Field

HOST = "127.0.0.1"
PNG = bytes([0x89, 0x50, 0x4E, 0x47])
NAMES = ["alice", "albert", "bob", "carol"]
log = logging.getLogger("sdk_resources_server")

HINT = CacheHint(ttl_ms=60_000, scope="private")
mcp = MCPServer(
    "mcpcore-interop-python-resources",
    version="0.1.0",
    cache_hints={
        "tools/list": HINT,
        "prompts/list": HINT,
        "resources/list": HINT,
        "resources/templates/list": HINT,
        "resources/read": HINT,
    },
)
counts: Counter[str] = Counter()
state = {"counter": 0}
subscribed: dict[str, Any] = {}  # uri -> legacy session that subscribed


async def count_requests(ctx: Any, call_next: Any) -> Any:
    counts[ctx.method] += 1
    return await call_next(ctx)


mcp._lowlevel_server.middleware.append(count_requests)


@mcp.resource("text://greeting", mime_type="text/plain")
def greeting() -> str:
    return "Hello from the Python SDK"


@mcp.resource("bin://pixel", mime_type="image/png")
def pixel() -> bytes:
    return PNG


@mcp.resource("greet://{name}", mime_type="text/plain")
def greet_template(name: str) -> str:
    return f"Hello, {name}!"


@mcp.resource("counter://value", mime_type="text/plain")
def counter_value() -> str:
    return str(state["counter"])


@mcp.prompt()
def greet(name: str, style: str = "plain") -> str:
    """Greets someone."""
    text = f"Please greet {name}"
    return text.upper() if style == "loud" else text


@mcp.prompt()
def rich() -> list[Message]:
    """An embedded resource and an image."""
    resource = types.EmbeddedResource(
        resource=types.TextResourceContents(uri="text://greeting", mime_type="text/plain", text="Hello from the Python SDK")
    )
    return [UserMessage(resource), UserMessage(Image(data=PNG, format="png"))]


@mcp.completion()
async def complete(ref: Any, argument: Any, context: Any) -> types.Completion | None:
    if isinstance(ref, types.PromptReference) and ref.name == "greet" and argument.name == "name":
        values = [n for n in NAMES if n.startswith(argument.value)]
        style = (context.arguments or {}).get("style") if context else None
        if style == "loud":
            values = [v.upper() for v in values]
        return types.Completion(values=values, total=len(values), has_more=False)
    return None


class Person(BaseModel):
    name: str
    age: int = Field(default=42)


class Colour(BaseModel):
    colour: str


def ask_person() -> Elicit[Person]:
    return Elicit("Who are you?", Person)


def ask_colour() -> Elicit[Colour]:
    return Elicit("Favourite colour?", Colour)


def ask_hi() -> Sample:
    msg = types.SamplingMessage(role="user", content=types.TextContent(text="Say hi"))
    return Sample([msg], max_tokens=20)


def ask_roots() -> ListRoots:
    return ListRoots()


@mcp.tool()
def ask_name(person: Annotated[Person, Resolve(ask_person)]) -> str:
    """Elicits a name and an age."""
    return f"{person.name}/{person.age}"


@mcp.tool()
def ask_twice(
    person: Annotated[Person, Resolve(ask_person)], colour: Annotated[Colour, Resolve(ask_colour)]
) -> str:
    """Elicits twice."""
    return f"{person.name}:{colour.colour}"


@mcp.tool()
def sample(reply: Annotated[types.CreateMessageResult, Resolve(ask_hi)]) -> str:
    """Samples the client's model."""
    content = reply.content
    return content.text if isinstance(content, types.TextContent) else repr(content)


@mcp.tool()
def roots(result: Annotated[types.ListRootsResult, Resolve(ask_roots)]) -> str:
    """Lists the client's roots."""
    return ",".join(str(r.uri) for r in result.roots)


@mcp.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Bumps the counter and announces the change."""
    state["counter"] += 1
    if ctx.protocol_version == "2026-07-28":
        await ctx.notify_resource_updated(uri)
        await ctx.notify_tools_changed()
    else:
        session = subscribed.get(uri)
        if session is not None:
            await session.send_resource_updated(uri)
        await ctx.session.send_tool_list_changed()
    return str(state["counter"])


@mcp.tool()
def stats() -> str:
    """Requests served per method."""
    return json.dumps(dict(counts), sort_keys=True)


async def on_subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    subscribed[str(params.uri)] = ctx.session
    return types.EmptyResult()


async def on_unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    subscribed.pop(str(params.uri), None)
    return types.EmptyResult()


mcp._lowlevel_server.add_request_handler("resources/subscribe", types.SubscribeRequestParams, on_subscribe)
mcp._lowlevel_server.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, on_unsubscribe)


async def serve_http(port: int) -> None:
    app = mcp.streamable_http_app()
    uv = uvicorn.Server(uvicorn.Config(app, host=HOST, port=port, log_level="warning", lifespan="on"))
    async with anyio.create_task_group() as tg:

        async def announce() -> None:
            while not uv.started:
                if uv.should_exit:
                    return
                await anyio.sleep(0.02)
            print(f"READY http://{HOST}:{uv.servers[0].sockets[0].getsockname()[1]}/mcp", flush=True)

        tg.start_soon(announce)
        await uv.serve()
        tg.cancel_scope.cancel()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--http", action="store_true", help="Streamable HTTP on 127.0.0.1 instead of stdio")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log-level", default="WARNING")
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(), format="sdk_resources_server: %(message)s")
    if args.http:
        anyio.run(serve_http, args.port)
    else:
        mcp.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
