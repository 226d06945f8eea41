"""The example contract's echo server in Python: tools ``echo`` and ``add``.

    python echo_server.py                       # stdio, both lineages
    python echo_server.py --http 127.0.0.1:PORT # HTTP on /mcp (prints "listening on URL")
    python echo_server.py --http 127.0.0.1:PORT --auth-jwks URL --auth-issuer ISS --auth-audience AUD

With the ``--auth-*`` options (HTTP only) it is an OAuth resource server: every request needs a
bearer JWT signed with a key of the JWKS at URL, issued by ISS for AUD (the PRM names ISS as
the authorization server). ``echo`` needs no scope; ``add`` needs ``mcp:add`` and is hidden
from ``tools/list`` for tokens without it.
"""

import argparse
import sys
from typing import Optional, TypedDict

from mcpcore import Auth, Server

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


def auth(args: argparse.Namespace) -> Optional[Auth]:
    given = [args.auth_jwks, args.auth_issuer, args.auth_audience]
    if not any(given):
        return None
    if not all(given):
        sys.exit("echo_server: --auth-jwks URL, --auth-issuer ISS and --auth-audience AUD go together")
    if args.http is None:
        # 2026-07-28 basic/authorization: stdio servers take credentials from the environment.
        sys.exit("echo_server: --auth-* needs --http (a stdio server takes no bearer tokens)")
    return Auth(jwks_url=args.auth_jwks, issuer=args.auth_issuer, audience=args.auth_audience,
                tool_scopes={"add": ["mcp:add"]})


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The example contract's echo server.")
    parser.add_argument("--http", metavar="IP:PORT", help="serve HTTP on /mcp instead of stdio")
    parser.add_argument("--auth-jwks", metavar="URL", help="accept JWTs signed with the keys at URL")
    parser.add_argument("--auth-issuer", metavar="ISS", help="the issuer those tokens must name")
    parser.add_argument("--auth-audience", metavar="AUD", help="the audience (this server's URI)")
    args = parser.parse_args()
    protected = auth(args)
    if args.http is not None:
        host, _, port = args.http.rpartition(":")
        server.run("http", host=host, port=int(port), auth=protected)
    else:
        server.run()
