"""The mcpcore Python server of the scale workloads (W9 catalogue, W10 streams, W11 payloads).

    python py_mcpcore_server.py [--catalogue]                        # stdio
    python py_mcpcore_server.py --http 127.0.0.1:PORT [--catalogue]  # HTTP on /mcp
    python py_mcpcore_server.py --http 127.0.0.1:PORT --tools 60     # W12

Tools ``echo`` (as examples/python/echo_server.py) and ``touch`` (registers one more tool, so
every open subscriptions/listen and legacy GET stream gets notifications/tools/list_changed).
``--catalogue`` adds 1,000 tools ``tool_0000``... (schemas from the type hints, as the binding
makes them) and 10,000 resources ``bench://catalogue/00000``...; ``--tools N`` only the first N of
those tools (W12's realistic stateless server). Library defaults, except
``max_body`` (64 MiB, for W11). ``--pass-through`` adds one middleware that passes every request
on (the cost of the middleware chain, W6).
"""

import sys

from mcpcore import Server

server = Server("bench-mcpcore-python", "0.1.0")
touched = [0]


@server.tool()
def echo(text: str) -> str:
    """Returns the text unchanged."""
    return text


@server.tool()
def touch() -> str:
    """Changes the tool list (W10)."""
    n = touched[0]
    touched[0] += 1

    def added() -> str:
        return "touched"

    server.add_tool(added, name=f"touched_{n}", description="Added by touch.")
    return f"touched {n}"


def catalogue_tool(name: str):
    def tool(id: str, count: int = 0) -> str:  # noqa: A002 - the catalogue's field name
        return name

    return tool


def catalogue_resource(name: str):
    def read() -> str:
        return name

    return read


def catalogue_tools(count: int) -> None:
    for i in range(count):
        name = f"tool_{i:04}"
        server.add_tool(catalogue_tool(name), name=name, description=f"Catalogue tool {i}.")


def catalogue() -> None:
    catalogue_tools(1000)
    for j in range(10_000):
        name = f"r{j:05}"
        server.add_resource(catalogue_resource(name), f"bench://catalogue/{j:05}", name=name, mime_type="text/plain")


if __name__ == "__main__":
    if "--pass-through" in sys.argv:

        @server.middleware
        async def pass_through(request, call_next):  # type: ignore[no-untyped-def]
            return await call_next(request)

    if "--catalogue" in sys.argv:
        catalogue()
    elif "--tools" in sys.argv:
        catalogue_tools(int(sys.argv[sys.argv.index("--tools") + 1]))
    if "--http" in sys.argv:
        host, _, port = sys.argv[sys.argv.index("--http") + 1].rpartition(":")
        # W10 opens its 1,000 streams from one address: past the default per-client session quota.
        server.run("http", host=host, port=int(port), max_body=64 << 20, max_sessions_per_client=100_000)
    else:
        server.run()
