"""The example contract's echo client in Python.

    python echo_client.py URL [TEXT]               # HTTP
    python echo_client.py [TEXT] -- CMD [ARGS...]  # spawn CMD, talk stdio

Negotiates the lineage automatically, calls ``echo``, prints the text and the protocol version;
exits non-zero on any failure.
"""

import asyncio
import sys

from mcpcore import Client, McpError


async def main(argv: list) -> int:
    mine, target = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    urls = [a for a in mine if a.startswith(("http://", "https://"))]
    texts = [a for a in mine if a not in urls]
    text = texts[0] if texts else "hello from mcpcore (python)"
    if urls:
        client = await Client.connect_http(urls[0])
    elif target:
        client = await Client.connect_stdio(target)
    else:
        print("usage: echo_client.py URL [TEXT] | echo_client.py [TEXT] -- CMD [ARGS...]", file=sys.stderr)
        return 2
    async with client:
        result = await client.call_tool("echo", {"text": text})
        if result.is_error:
            print(f"echo_client: the tool failed: {result.text}", file=sys.stderr)
            return 1
        print(result.text)
        print(f"protocol {client.protocol_version}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main(sys.argv[1:])))
    except McpError as e:
        print(f"echo_client: {type(e).__name__}: {e} (code {e.code})", file=sys.stderr)
        sys.exit(1)
