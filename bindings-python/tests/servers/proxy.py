"""A proxy in a few lines: one Registry holding a local tool and every tool of a remote server
(spawned over stdio), served again on this process's stdio.

    python proxy.py -- CMD [ARGS...]      # the remote server's command
"""

import asyncio
import sys

from mcpcore import Client, Registry, Server


async def main(remote_command: list) -> None:
    registry = Registry()

    @registry.tool()
    def local_hello(name: str) -> str:
        """Greets from the proxy itself."""
        return f"hello {name} from the proxy"

    remote = await Client.connect_stdio(remote_command)
    await registry.connect("remote", remote, collision="prefix")
    await Server("proxy", "1.0", registry=registry).serve_stdio()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[sys.argv.index("--") + 1 :]))
