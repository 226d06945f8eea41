"""The example contract's echo server in Python: tools ``echo`` and ``add``.

    python echo_server.py                       # stdio, both lineages
    python echo_server.py --http 127.0.0.1:PORT # HTTP on /mcp (prints "listening on URL")
    python echo_server.py --http 127.0.0.1:PORT --auth-jwks URL --auth-issuer ISS --auth-audience AUD
    python echo_server.py --http 127.0.0.1:PORT --store redis://HOST:PORT[/DB] [--allowed-host NAME[:PORT]]...
    python echo_server.py --http 127.0.0.1:PORT --limit max_sessions_per_client=100 --limit max_in_flight=50
    python echo_server.py --apps                # also show_echo, whose view is the app ui://echo/view.html
    python echo_server.py --tool-search --synthetic-tools 1000  # 1,000 more tools, found by search_tools
    python echo_server.py --rate-limit 5        # each client: 5 requests a second (ready-made middleware)
    python echo_server.py --idempotency         # append(text, idempotency_key), once per key
    python echo_server.py --events [--events-heartbeat-ms N] [--events-allow-http-loopback]  # MCP Events

``--events`` (the Events extension, SEP-3415) declares ``echoed``, one occurrence ``{"text"}``
per ``echo`` call, delivered by poll, push and signed webhooks, and ``tick``, one ``{"n"}`` a
second, the last 60 kept for replay, by poll and push. ``--events-allow-http-loopback``
(development only) accepts ``http`` webhook callbacks on loopback addresses and subscribers
without a token.

Behind a load balancer with several instances (no sticky routing): ``--store redis://...`` keeps
legacy sessions in Redis, so any instance serves any message of any session; it needs the
``requestState`` keys in the environment variable ``MCPCORE_STATE_KEY`` (hex, at least 32 bytes,
newest first, the same on every instance) and refuses to start without them.
``--allowed-host NAME[:PORT]`` (repeatable) accepts the public host the proxy forwards as
``Host``/``Origin`` (the DNS-rebinding guard), besides the loopback names with this port.

With the ``--auth-*`` options (HTTP only) it is an OAuth resource server: every request needs a
bearer JWT signed with a key of the JWKS at URL, issued by ISS for AUD (the PRM names ISS as
the authorization server). ``echo`` needs no scope; ``add`` needs ``mcp:add`` and is hidden
from ``tools/list`` for tokens without it.
"""

import argparse
import inspect
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, TypedDict

from mcpcore import Auth, McpError, Server
from mcpcore.middleware import Idempotency, RateLimit

server = Server("mcpcore-echo-python", "0.1.0")


class Sum(TypedDict):
    sum: float


# echo and add return at once and never block: inline=True runs them on the engine's thread,
# without the hand-off to a worker thread and back (about 30 µs a call).
@server.tool(inline=True)
def echo(text: str) -> str:
    """Returns the text unchanged."""
    if EVENTS:
        server.emit_nowait("echoed", {"text": text})
    return text


EVENTS = False


class Echoed(TypedDict):
    """Each text the echo tool returned."""

    text: str


class Tick(TypedDict):
    """One a second, counting up from 1; replayable for the last 60."""

    n: int


def add_events(heartbeat_ms: Optional[int], allow_http_loopback: bool) -> None:
    """``--events``: the event types ``echoed`` and ``tick``, and a thread emitting a tick a second."""
    global EVENTS
    no_arguments = {"type": "object", "properties": {}, "additionalProperties": False}
    server.event("echoed", arguments=no_arguments, poll_interval_ms=1000,
                 delivery=("poll", "push", "webhook"))(Echoed)
    if allow_http_loopback:
        server.webhook_policy(allow_http_loopback=True, allow_anonymous=True)
    server.event("tick", arguments=no_arguments, retain=60, poll_interval_ms=1000)(Tick)
    if heartbeat_ms is not None:
        server.event_heartbeat(heartbeat_ms / 1000)
    EVENTS = True

    def ticking() -> None:
        n = 0
        while True:
            time.sleep(1)
            n += 1
            server.emit_nowait("tick", Tick(n=n))

    threading.Thread(target=ticking, name="tick", daemon=True).start()


@server.tool(inline=True)
def add(a: float, b: float) -> Sum:
    """Adds two numbers."""
    return {"sum": a + b}


def add_apps() -> None:
    """``--apps`` (MCP Apps): the tool ``show_echo`` bound to the app ``ui://echo/view.html``
    (examples/echo_view.html, the view every example server serves)."""
    view = (Path(__file__).resolve().parent.parent / "echo_view.html").read_text(encoding="utf-8")

    @server.app("ui://echo/view.html", view, prefers_border=True)
    def show_echo(text: str) -> Dict[str, Any]:
        """Shows the text in the echo view; hosts without apps get the text itself."""
        return {"content": [{"type": "text", "text": text}], "structuredContent": {"text": text}}


class Length(TypedDict):
    length: int


def add_append(store: Optional[str]) -> None:
    """``--idempotency``: the write tool ``append``, acting once per ``idempotency_key`` (the
    keys in the Redis at ``--store`` when given, shared by every instance)."""
    import asyncio  # (only this tool needs it: a server of sync tools starts without asyncio)

    log: List[str] = []

    @server.tool()
    async def append(text: str, idempotency_key: str) -> Length:
        """Appends a line to the log, once per idempotency key; answers the lines in the log."""
        await asyncio.sleep(0.2)
        log.append(text)
        return {"length": len(log)}

    server.add_middleware(Idempotency(store=store))


VERBS = ["create", "list", "get", "update", "delete", "search", "archive", "export", "import", "approve",
         "reject", "send", "schedule", "cancel", "assign", "merge", "tag", "comment_on", "duplicate", "restore"]
NOUNS = ["invoice", "customer", "order", "payment", "refund", "ticket", "user", "report", "project", "task",
         "document", "contract", "shipment", "product", "supplier", "employee", "meeting", "campaign",
         "subscription", "quote", "expense", "lead", "asset", "budget", "calendar_event"]


def add_synthetic_tools(n: int) -> None:
    """``--synthetic-tools N``: N generated tools, the same as the Rust echo_server's (every verb
    on every kind of record, one at a time or in bulk), each answering ``"<name> done"``."""
    made = 0
    for scope in ("one", "many"):
        for noun in NOUNS:
            for verb in VERBS:
                if made == n:
                    return
                name = f"{verb}_{noun}_{'by_id' if scope == 'one' else 'in_bulk'}"
                what = noun.replace("_", " ")
                words = verb.replace("_", " ")
                doing = words[0].upper() + words[1:]
                description = (f"{doing} one {what} given its id." if scope == "one"
                               else f"{doing} many {what}s at once, from a filter or a list of ids.")

                def done(id: str = "", note: str = "", _name: str = name) -> str:
                    return f"{_name} done"

                server.registry.add_tool(done, name=name, description=description)
                made += 1


def auth(args: argparse.Namespace) -> Optional[Auth]:
    given = [args.auth_jwks, args.auth_issuer, args.auth_audience]
    if not any(given):
        return None
    if not all(given):
        sys.exit("echo_server: --auth-jwks URL, --auth-issuer ISS and --auth-audience AUD go together")
    return Auth(jwks_url=args.auth_jwks, issuer=args.auth_issuer, audience=args.auth_audience,
                tool_scopes={"add": ["mcp:add"]})


def host_options(hosts: List[str], port: int) -> Dict[str, Any]:
    """The allow-lists for ``--allowed-host``: the given names plus the loopback names with this
    port (as the Rust echo_server does), each as a ``Host`` and as http/https origins."""
    if not hosts:
        return {}
    loopback = ["127.0.0.1", "localhost", "[::1]"]
    names = [f"{n}:{port}" for n in loopback] + loopback + hosts
    origins = [f"{s}://{n}" for n in [f"{n}:{port}" for n in loopback] + hosts for s in ("http", "https")]
    return {"allowed_hosts": names, "allowed_origins": origins}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The example contract's echo server.")
    parser.add_argument("--http", metavar="IP:PORT", help="serve HTTP on /mcp instead of stdio")
    parser.add_argument("--auth-jwks", metavar="URL", help="accept JWTs signed with the keys at URL")
    parser.add_argument("--auth-issuer", metavar="ISS", help="the issuer those tokens must name")
    parser.add_argument("--auth-audience", metavar="AUD", help="the audience (this server's URI)")
    parser.add_argument("--store", metavar="URL", help="keep legacy sessions in redis://HOST:PORT[/DB]")
    parser.add_argument("--allowed-host", metavar="NAME[:PORT]", action="append", default=[],
                        help="a public host name a proxy forwards (repeatable)")
    parser.add_argument("--limit", metavar="NAME=VALUE", action="append", default=[],
                        help="one of serve_http's limits, e.g. max_in_flight=50 or "
                             "peer_request_timeout_ms=30000 (repeatable)")
    parser.add_argument("--apps", action="store_true",
                        help="also serve show_echo and its app ui://echo/view.html (MCP Apps)")
    parser.add_argument("--synthetic-tools", metavar="N", type=int, default=0,
                        help="add N generated tools (for --tool-search)")
    parser.add_argument("--tool-search", action="store_true",
                        help="list only echo, add and search_tools, which searches every tool")
    parser.add_argument("--rate-limit", metavar="N", type=float,
                        help="each client: at most N requests a second (bursts of N)")
    parser.add_argument("--idempotency", action="store_true",
                        help="also serve append(text, idempotency_key), acting once per key")
    parser.add_argument("--events", action="store_true", help="declare the event types echoed and tick")
    parser.add_argument("--events-heartbeat-ms", metavar="N", type=int,
                        help="how often a quiet event stream hears a heartbeat (default 15000)")
    parser.add_argument("--events-allow-http-loopback", action="store_true",
                        help="development only: http webhook callbacks on loopback, subscribers without a token")
    args = parser.parse_args()
    if args.events:
        add_events(args.events_heartbeat_ms, args.events_allow_http_loopback)
    if args.idempotency:
        add_append(args.store)
    if args.rate_limit is not None:
        server.add_middleware(RateLimit(per_second=args.rate_limit, burst=max(1, int(-(-args.rate_limit // 1)))))
    if args.apps:
        add_apps()
    add_synthetic_tools(args.synthetic_tools)
    if args.tool_search:
        server.tool_search(["echo", "add"])
    protected = auth(args)
    if args.http is None and (args.store or args.allowed_host or args.limit):
        sys.exit("echo_server: --store, --allowed-host and --limit need --http")
    limits = {}
    for pair in args.limit:
        name, _, value = pair.partition("=")
        try:
            number = int(value)
        except ValueError:
            sys.exit(f"echo_server: --limit needs NAME=INTEGER, not {pair!r}")
        # serve_http takes seconds where the core's name says milliseconds.
        key = name[:-3] if name.endswith("_ms") else name
        if key not in inspect.signature(server.serve_http).parameters or key in ("host", "port", "path"):
            sys.exit(f"echo_server: unknown --limit {name!r}")
        limits[key] = number / 1000 if name.endswith("_ms") else number
    if args.http is not None:
        host, _, port = args.http.rpartition(":")
        try:
            server.run("http", host=host.strip("[]"), port=int(port), auth=protected, store=args.store,
                       **host_options(args.allowed_host, int(port)), **limits)
        except McpError as e:
            sys.exit(f"echo_server: {e}")
    else:
        # On stdio the token comes from the environment (MCP_ACCESS_TOKEN), checked once.
        try:
            server.run(auth=protected)
        except McpError as e:
            sys.exit(f"echo_server: {e}")
