"""The example contract's echo server in Python: tools ``echo`` and ``add``.

    python echo_server.py                       # stdio, both lineages
    python echo_server.py --http 127.0.0.1:PORT # HTTP on /mcp (prints "listening on URL")
"""

import sys
from typing import TypedDict

from mcpcore import Server

server = Server("mcpcore-echo-python", "0.1.0")


class Sum(TypedDict):
    sum: float


@server.tool()
def echo(text: str) -> str:
    """Returns the text unchanged."""
    return text


@server.tool()
def add(a: float, b: float) -> Sum:
    """Adds two numbers."""
    return {"sum": a + b}


if __name__ == "__main__":
    if "--http" in sys.argv:
        host, _, port = sys.argv[sys.argv.index("--http") + 1].rpartition(":")
        server.run("http", host=host, port=int(port))
    else:
        server.run()
