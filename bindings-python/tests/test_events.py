"""MCP Events (SEP-3415) served from Python: event types declared with ``@server.event`` (a
TypedDict payload) and ``add_event``, occurrences emitted with ``await server.emit``; read by the
mcpcore client over real HTTP (``events/list``, ``events/poll`` with its cursor) and a raw SSE
``events/stream``; and the example ``echo_server.py --events`` as a child process on stdio, on
both lineages. Bad declarations and emits raise ``InvalidInput`` and record nothing."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List, TypedDict
from urllib.parse import urlsplit

import pytest

from mcpcore import Client, InvalidInput, McpError, Server

from conftest import EXAMPLES, LINEAGES, PY, bounded, run_async


class Deploy(TypedDict):
    """A service was deployed."""

    service: str
    version: int


def make_server() -> Server:
    server = Server("events", "1.0")
    server.event("deploy", arguments={"type": "object", "properties": {"service": {"type": "string"}}},
                 retain=3)(Deploy)
    server.add_event("pushed", "Push only", delivery=["push"])
    server.event_heartbeat(0.05)
    return server


def datas(result: Dict[str, Any]) -> List[Any]:
    return [e["data"] for e in result["events"]]


@run_async
async def test_declared_types_are_listed_polled_from_a_cursor_and_errors_keep_their_codes() -> None:
    server = make_server()
    serving = await server.serve_http()
    try:
        async with await bounded(Client.connect_http(serving.url)) as c:
            caps = c.server_capabilities
            assert caps["extensions"]["io.modelcontextprotocol/events"] == {"listChanged": True}
            assert caps["events"] == {}
            listed = (await c.request("events/list"))["events"]
            deploy = next(e for e in listed if e["name"] == "deploy")
            assert deploy["description"] == "A service was deployed."
            assert deploy["payloadSchema"]["required"] == ["service", "version"]
            assert deploy["delivery"] == ["poll", "push"]
            first = await c.request("events/poll", {"name": "deploy", "arguments": {}, "cursor": None})
            assert first["events"] == [] and first["truncated"] is False
            emitted = await server.emit("deploy", Deploy(service="api", version=7))
            assert emitted["eventId"].startswith("evt_") and emitted["data"] == {"service": "api", "version": 7}
            second = await c.request("events/poll", {"name": "deploy", "arguments": {}, "cursor": first["cursor"]})
            assert datas(second) == [{"service": "api", "version": 7}]
            assert second["events"][0]["eventId"] == emitted["eventId"]
            # Retention 3: a reader 5 behind gets the last 3 and truncated.
            for v in range(8, 13):
                server.emit_nowait("deploy", {"service": "api", "version": v})
            late = await c.request("events/poll", {"name": "deploy", "arguments": {}, "cursor": second["cursor"]})
            assert [d["version"] for d in datas(late)] == [10, 11, 12] and late["truncated"] is True
            # The codes survive into Python.
            with pytest.raises(McpError) as e:
                await c.request("events/poll", {"name": "nope", "arguments": {}})
            assert e.value.code == -32011 and e.value.data == {"kind": "event", "name": "nope"}
            with pytest.raises(McpError) as e:
                await c.request("events/poll", {"name": "pushed", "arguments": {}})
            assert e.value.code == -32014
            with pytest.raises(McpError) as e:
                await c.request("events/poll", {"name": "deploy", "arguments": {}, "cursor": "forged"})
            assert e.value.code == -32602
            # Bad emits raise and record nothing.
            with pytest.raises(InvalidInput, match="payloadSchema"):
                await server.emit("deploy", {"service": "api"})
            with pytest.raises(InvalidInput, match="no event type named"):
                await server.emit("nope", {})
            with pytest.raises(InvalidInput, match="at most 262144 bytes"):
                await server.emit("pushed", {"blob": "x" * 300_000})
            again = await c.request("events/poll", {"name": "deploy", "arguments": {}, "cursor": late["cursor"]})
            assert again["events"] == []
    finally:
        await serving.shutdown()


def test_declarations_are_checked() -> None:
    server = Server("bad", "1.0")
    with pytest.raises(InvalidInput, match="fax"):
        server.add_event("a", delivery=["fax"])
    with pytest.raises(InvalidInput, match="retain"):
        server.add_event("a", retain=0)
    assert not server.remove_event("a")


async def open_stream(url: str, body: Dict[str, Any]) -> "tuple[asyncio.StreamReader, asyncio.StreamWriter]":
    """POSTs ``body`` to ``url`` and returns the connection after the response headers."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    data = json.dumps(body).encode()
    writer.write((f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
                  f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                  f"Mcp-Method: events/stream\r\nContent-Length: {len(data)}\r\n\r\n").encode() + data)
    await writer.drain()
    head = await bounded(reader.readuntil(b"\r\n\r\n"))
    assert head.startswith(b"HTTP/1.1 200"), head
    assert b"text/event-stream" in head.lower(), head
    return reader, writer


async def next_note(reader: asyncio.StreamReader) -> Dict[str, Any]:
    while True:
        line = (await bounded(reader.readline())).decode().strip()
        if line.startswith("data:"):
            return dict(json.loads(line[5:]))


@run_async
async def test_an_emit_reaches_an_open_stream_over_http() -> None:
    server = make_server()
    serving = await server.serve_http()
    try:
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}
        body = {"jsonrpc": "2.0", "id": "s1", "method": "events/stream",
                "params": {"name": "deploy", "arguments": {}, "_meta": meta}}
        reader, writer = await open_stream(serving.url, body)
        active = await next_note(reader)
        assert active["method"] == "notifications/events/active"
        assert active["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": "s1"}
        await server.emit("deploy", {"service": "web", "version": 1})
        note = await next_note(reader)
        while note["method"] != "notifications/events/event":
            note = await next_note(reader)
        assert note["params"]["data"] == {"service": "web", "version": 1}
        assert note["params"]["cursor"]
        beat = await next_note(reader)
        assert beat["method"] == "notifications/events/heartbeat"
        assert beat["params"]["cursor"] == note["params"]["cursor"]
        writer.close()
    finally:
        await serving.shutdown()


@pytest.mark.parametrize("lineage,version", LINEAGES)
def test_the_example_server_emits_echoed_and_tick(lineage: str, version: str) -> None:
    @run_async
    async def go() -> None:
        async with await Client.connect_stdio(PY, [str(EXAMPLES / "echo_server.py"), "--events"],
                                              lineage=lineage) as c:
            assert c.protocol_version == version
            start = await c.request("events/poll", {"name": "echoed", "arguments": {}})
            await c.call_tool("echo", {"text": "hi"})
            got = await c.request("events/poll", {"name": "echoed", "arguments": {}, "cursor": start["cursor"]})
            assert datas(got) == [{"text": "hi"}]
            assert got["nextPollMs"] == 1000
            ticks = await c.request("events/poll", {"name": "tick", "arguments": {}})
            for _ in range(30):
                await asyncio.sleep(0.1)
                later = await c.request("events/poll", {"name": "tick", "arguments": {}, "cursor": ticks["cursor"]})
                if later["events"]:
                    assert all(isinstance(d["n"], int) for d in datas(later))
                    break
            else:
                raise AssertionError("no tick in 3 s")
            with pytest.raises(McpError) as e:
                await c.request("events/poll", {"name": "tick", "arguments": {"x": 1}})
            assert e.value.code == -32602

    go()


class _Receiver:
    """A webhook endpoint on 127.0.0.1 (the standard library's HTTP server in a thread) that
    checks every delivery with the Standard Webhooks reference library and answers the
    verification challenge."""

    def __init__(self, secret: str) -> None:
        import http.server
        import threading

        from standardwebhooks import Webhook

        self.verified: List[Dict[str, Any]] = []
        self.headers: List[Dict[str, str]] = []
        hook = Webhook(secret)
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                body = self.rfile.read(int(self.headers["content-length"]))
                headers = {k.lower(): v for k, v in self.headers.items()}
                payload = hook.verify(body, headers)  # raises on a bad signature or an old timestamp
                receiver.verified.append(payload)
                receiver.headers.append(headers)
                answer = json.dumps({"challenge": payload["challenge"]}) if payload.get("type") == "verification" else ""
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer.encode())

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


SECRET = "whsec_" + __import__("base64").b64encode(b"k" * 32).decode()


@pytest.mark.parametrize("lineage,version", LINEAGES)
def test_the_example_delivers_echoed_to_a_webhook_the_reference_library_verifies(lineage: str, version: str) -> None:
    receiver = _Receiver(SECRET)

    @run_async
    async def go() -> None:
        args = [str(EXAMPLES / "echo_server.py"), "--events", "--events-allow-http-loopback"]
        async with await Client.connect_stdio(PY, args, lineage=lineage) as c:
            sub = await c.request("events/subscribe", {
                "name": "echoed", "arguments": {},
                "delivery": {"mode": "webhook", "url": receiver.url, "secret": SECRET}})
            assert sub["id"].startswith("sub_") and sub["truncated"] is False
            assert receiver.verified[0]["type"] == "verification"
            await c.call_tool("echo", {"text": "to the hook"})
            for _ in range(100):
                if len(receiver.verified) >= 2:
                    break
                await asyncio.sleep(0.05)
            event = receiver.verified[1]
            assert event["name"] == "echoed" and event["data"] == {"text": "to the hook"}
            assert receiver.headers[1]["webhook-id"] == event["eventId"]
            assert receiver.headers[1]["x-mcp-subscription-id"] == sub["id"]
            # Unsubscribed: the next echo reaches nobody.
            await c.request("events/unsubscribe", {"name": "echoed", "arguments": {},
                                                   "delivery": {"url": receiver.url}})
            await c.call_tool("echo", {"text": "nobody"})
            await asyncio.sleep(0.3)
            assert len(receiver.verified) == 2
            with pytest.raises(McpError) as e:
                await c.request("events/subscribe", {"name": "tick", "arguments": {},
                                                     "delivery": {"url": receiver.url, "secret": SECRET}})
            assert e.value.code == -32014, "tick is not delivered by webhook"

    try:
        go()
    finally:
        receiver.close()


@run_async
async def test_webhooks_need_a_principal_and_https_by_default() -> None:
    server = Server("strict", "1.0")
    server.add_event("deploy", delivery=["webhook"])
    serving = await server.serve_http()
    try:
        async with await bounded(Client.connect_http(serving.url)) as c:
            with pytest.raises(McpError) as e:
                await c.request("events/subscribe", {"name": "deploy", "arguments": {},
                                                     "delivery": {"url": "https://example.com/h", "secret": SECRET}})
            assert e.value.code == -32012
    finally:
        await serving.shutdown()


@run_async
async def test_the_python_client_lists_polls_and_streams_with_resume() -> None:
    server = make_server()
    serving = await server.serve_http()
    try:
        for lineage in ("modern", "legacy"):
            async with await bounded(Client.connect_http(serving.url, lineage=lineage)) as c:
                assert c.events_support() == {"listChanged": True}
                assert [t["name"] for t in await c.list_events()] == ["deploy", "pushed"]
                first = await c.poll_events("deploy")
                assert first["events"] == [] and first["cursor"]
                await server.emit("deploy", {"service": "a", "version": 1})
                got = await c.poll_events("deploy", {}, first["cursor"], max_events=10)
                assert datas(got) == [{"service": "a", "version": 1}]
                async with await c.stream_events("deploy", cursor=got["cursor"]) as stream:
                    active = await stream.next()
                    assert active == {"type": "active", "cursor": got["cursor"], "truncated": False}
                    await server.emit("deploy", {"service": "a", "version": 2})
                    async for item in stream:
                        if item["type"] == "event":
                            assert item["data"] == {"service": "a", "version": 2}
                            assert stream.cursor == item["cursor"]
                            break
                    resume = stream.cursor
                await server.emit("deploy", {"service": "a", "version": 3})
                async with await c.stream_events("deploy", cursor=resume) as again:
                    items = [await again.next(), await again.next()]
                    assert items[0]["type"] == "active" and items[1]["data"]["version"] == 3
                with pytest.raises(McpError) as e:
                    await c.stream_events("nope")
                assert e.value.code == -32011
                # The poller: the first answer at once, the next after the server's pace (>= 1 s floor).
                poller = c.poller("deploy", cursor=resume)
                batch = await poller.__anext__()
                assert [d["version"] for d in datas(batch)] == [3]
                loop = asyncio.get_running_loop()
                start = loop.time()
                await server.emit("deploy", {"service": "a", "version": 4})
                batch = await poller.__anext__()
                assert loop.time() - start >= 1.0 and [d["version"] for d in datas(batch)] == [4]
                await poller.aclose()
    finally:
        await serving.shutdown()


def test_the_python_client_subscribes_a_webhook() -> None:
    receiver = _Receiver(SECRET)

    @run_async
    async def go() -> None:
        server = Server("hooks", "1.0")
        server.add_event("deploy", delivery=["webhook"])
        server.webhook_policy(allow_http_loopback=True, allow_anonymous=True)
        serving = await server.serve_http()
        try:
            async with await bounded(Client.connect_http(serving.url)) as c:
                granted = await c.subscribe_webhook("deploy", receiver.url, SECRET, ttl=60)
                assert granted["id"].startswith("sub_") and granted["refreshBefore"]
                await server.emit("deploy", {"ok": True})
                for _ in range(100):
                    if len(receiver.verified) >= 2:
                        break
                    await asyncio.sleep(0.05)
                assert receiver.verified[1]["data"] == {"ok": True}
                await c.unsubscribe_webhook("deploy", receiver.url)
                with pytest.raises(McpError) as e:
                    await c.unsubscribe_webhook("deploy", receiver.url)
                assert e.value.code == -32011
        finally:
            await serving.shutdown()

    try:
        go()
    finally:
        receiver.close()


@run_async
async def test_a_webhook_receiver_mounted_as_asgi_takes_our_servers_deliveries() -> None:
    import socket

    import uvicorn

    from mcpcore import WebhookReceiver

    taken: List[Any] = []

    async def on_delivery(delivery: Dict[str, Any], subscription: Any) -> None:
        taken.append((delivery, subscription))

    receiver = WebhookReceiver(SECRET)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    hook = uvicorn.Server(uvicorn.Config(receiver.asgi_app(on_delivery), log_level="warning", lifespan="off"))
    serving_hook = asyncio.create_task(hook.serve(sockets=[sock]))
    server = Server("hooks", "1.0")
    server.add_event("deploy", delivery=["webhook"])
    server.webhook_policy(allow_http_loopback=True, allow_anonymous=True)
    serving = await server.serve_http()
    try:
        while not hook.started:
            await asyncio.sleep(0.01)
        async with await bounded(Client.connect_http(serving.url)) as c:
            granted = await c.subscribe_webhook("deploy", f"http://127.0.0.1:{port}/", SECRET)
            await server.emit("deploy", {"v": 1})
            for _ in range(100):
                if taken:
                    break
                await asyncio.sleep(0.05)
            (delivery, subscription), = taken
            assert delivery["type"] == "event" and delivery["data"] == {"v": 1}
            assert subscription == granted["id"]
        # A forgery is refused by receive() itself.
        status, _, refused, _ = receiver.receive({"webhook-id": "x", "webhook-timestamp": "1",
                                                  "webhook-signature": "v1,AAAA"}, b"{}")
        assert (status, refused) == (401, None)
    finally:
        await serving.shutdown()
        hook.should_exit = True
        await serving_hook


@run_async
async def test_filter_on_gives_each_subscription_the_occurrences_its_arguments_ask_for() -> None:
    server = Server("events", "1.0")
    server.event("deploy", arguments={"type": "object", "properties": {"service": {"type": "string"}}},
                 filter_on=["service"])(Deploy)
    serving = await server.serve_http()
    try:
        async with await bounded(Client.connect_http(serving.url)) as c:
            start = (await c.poll_events("deploy"))["cursor"]
            for service, version in (("api", 1), ("web", 2), ("api", 3)):
                await server.emit("deploy", Deploy(service=service, version=version))
            api = await c.poll_events("deploy", {"service": "api"}, cursor=start)
            assert [d["version"] for d in datas(api)] == [1, 3]
            web = await c.poll_events("deploy", {"service": "web"}, cursor=start)
            assert [d["version"] for d in datas(web)] == [2]
            every = await c.poll_events("deploy", {}, cursor=start)
            assert [d["version"] for d in datas(every)] == [1, 2, 3]
    finally:
        await serving.shutdown()
