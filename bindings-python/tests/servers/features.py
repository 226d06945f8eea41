"""A facade-written server with resources, a template, prompts, completion and tools that ask
the client for input (elicitation, sampling, roots), on stdio (default) or ``--http``.

With MCPCORE_TEST_EVENTS=FILE, the tools that wait for client input append what happened to
them (``asked:TAG``, ``cancelled:TAG``, ``answered:TAG``) to FILE, one per line.
"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, List

from mcpcore import Context, InputRequired, McpError, Message, RequestCancelled, Server

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def event(what: str) -> None:
    path = os.environ.get("MCPCORE_TEST_EVENTS")
    if path:
        with open(path, "a") as f:
            f.write(what + "\n")


@dataclass
class Person:
    name: str
    username: str = ""


def build() -> Server:
    server = Server("features", "1.0")

    # -- resources ------------------------------------------------------------------------

    @server.resource("memo://today", mime_type="text/plain")
    def today() -> str:
        """Today's memo."""
        return "Buy milk"

    @server.resource("memo://logo", name="logo", mime_type="image/png")
    def logo() -> bytes:
        return b"\x89PNG\r\n"

    @server.resource("memo://broken")
    def broken() -> str:
        raise RuntimeError("disk on fire")

    @server.resource("memo://teapot")
    def teapot() -> str:
        raise McpError("Resource not found: teapot", -32002, {"uri": "memo://teapot"})

    @server.resource("users://{id}/profile", mime_type="application/json", complete={"id": ["ann", "bob", "bea"]})
    async def profile(id: str, ctx: Context) -> Dict[str, Any]:
        """A user's profile."""
        return {"id": id, "served": ctx.protocol_version is not None}

    @server.resource("squares://{n}", mime_type="text/plain")
    def square(n: int) -> str:
        return str(n * n)

    # -- prompts --------------------------------------------------------------------------

    @server.prompt(complete={"language": ["python", "perl", "rust"]})
    def review(code: str, language: str = "python") -> str:
        """Asks for a code review.

        Args:
            code: The code to review.
            language: Its language.
        """
        return f"Review this {language} code:\n{code}"

    @server.prompt(title="A dialogue")
    async def dialogue(topic: str) -> List[Message]:
        """Starts a dialogue."""
        return [Message("user", f"Tell me about {topic}"), Message("assistant", "Gladly.")]

    @server.completion(prompt="dialogue", argument="topic")
    async def topics(value: str) -> List[str]:
        return [t for t in ["tea", "teapots", "coffee"] if t.startswith(value)]

    @server.prompt()
    async def greet_user(ctx: Context) -> str:
        """Asks the user's name, then greets them."""
        answer = await ctx.elicit("who", "Your name?", NAME_FORM)
        name = answer.content["name"] if answer.accepted and answer.content else "stranger"
        return f"Greet {name} warmly."

    # -- tools that ask the client ----------------------------------------------------------

    @server.tool()
    async def signup(ctx: Context) -> str:
        """Asks who the user is (a dataclass form)."""
        answer = await ctx.elicit("profile", "Who are you?", Person)
        if not answer.accepted:
            return f"no signup ({answer.action})"
        person: Person = answer.data
        return f"Hello, {person.name}!"

    @server.tool()
    def signup_sync(ctx: Context) -> str:
        """The same from a sync tool (runs on a worker thread)."""
        event("asked:sync")
        try:
            answer = ctx.elicit_sync("name", "Your name?", NAME_FORM)
        except RequestCancelled:
            event("cancelled:sync")
            raise
        event("answered:sync")
        return f"Hello, {answer.content['name'] if answer.content else '?'}!"

    @server.tool()
    async def wait_for_name(ctx: Context) -> str:
        """Asks a name, recording when it is cancelled while waiting."""
        event("asked:async")
        try:
            answer = await ctx.elicit("name", "Your name?", NAME_FORM)
        except asyncio.CancelledError:
            event("cancelled:async")
            raise
        event("answered:async")
        return str(answer.content)

    @server.tool()
    async def interview(ctx: Context) -> str:
        """Several rounds: a form, then the model, then the roots."""
        first = await ctx.elicit("first", "Your name?", NAME_FORM)
        name = first.content["name"] if first.content else "?"
        reply = await ctx.sample("summary", f"Summarize {name}", max_tokens=50)
        roots = await ctx.list_roots("roots")
        return f"{name}|{reply.text}|{','.join(r.uri for r in roots)}"

    @server.tool()
    async def remember(ctx: Context) -> str:
        """Keeps state between MRTR rounds."""
        rounds = (ctx.request_state or {}).get("rounds", 0) + 1
        ctx.set_request_state({"rounds": rounds})
        answer = await ctx.elicit("name", "Your name?", NAME_FORM)
        return f"{answer.content['name'] if answer.content else '?'} after {rounds} round(s)"

    @server.tool()
    async def swallow(ctx: Context) -> str:
        """Catches InputRequired (wrongly): the call still ends as input_required."""
        try:
            answer = await ctx.elicit("name", "Your name?", NAME_FORM)
        except InputRequired:
            return "swallowed"
        return str(answer.content)

    @server.tool()
    async def caps(ctx: Context) -> Dict[str, Any]:
        """The client's declared capabilities."""
        return {"caps": ctx.client_capabilities}

    @server.tool()
    def touch(uri: str) -> str:
        """Announces that a resource changed."""
        server.notify_resource_updated(uri)
        return "ok"

    return server


if __name__ == "__main__":
    if "--http" in sys.argv:
        build().run("http", port=0)
    else:
        build().run()
