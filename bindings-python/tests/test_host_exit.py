"""No orphan when the host process ends: a Python program that connected to a stdio server (behind
``sh -c``, with a background process in the server's tree) and is killed with SIGKILL or SIGTERM,
or simply exits without closing the client, leaves no process of that tree behind.

The core starts each server in its own process group with a parent-death signal and a group
watchdog; these tests check that the binding's host gets those guarantees. Every process of a test
carries a marker in its environment, so the whole tree is checked, grandchildren included.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from typing import List, Optional, Tuple

import pytest

from conftest import PY, TOOLBOX

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

HOST = textwrap.dedent(
    """
    import asyncio, sys
    from mcpcore import Client

    async def main(server, how):
        client = await Client.connect_stdio("sh", ["-c", "sleep 3600 & " + server + "; true"])
        call = asyncio.ensure_future(client.call_tool("slow", {"seconds": 3600}))
        await asyncio.sleep(0.3)  # the call is in flight
        print("ready", flush=True)
        if how == "exit":
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            sys.exit(0)  # no close(): the interpreter ends with the client open
        await call

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """
)


def marked(mark: str) -> List[Tuple[int, str]]:
    """Live (not zombie) processes whose environment holds MCPCORE_TEST_MARK=mark."""
    needle = f"MCPCORE_TEST_MARK={mark}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if needle not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{name}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
            with open(f"/proc/{name}/cmdline", "rb") as f:
                found.append((int(name), f.read().replace(b"\0", b" ").decode(errors="replace")))
        except (OSError, IndexError):
            continue
    return found


def wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


@pytest.mark.parametrize("how", ["sigkill", "sigterm", "exit"])
def test_the_server_tree_ends_with_its_host(how: str) -> None:
    mark = uuid.uuid4().hex
    env = dict(os.environ, MCPCORE_TEST_MARK=mark)
    server = f"{PY} {TOOLBOX}"
    host = subprocess.Popen([PY, "-c", HOST, server, how], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None
        assert host.stdout.readline().strip() == "ready"
        tree = marked(mark)
        # host, sh, sleep, the server (and the core's watchdog)
        assert len(tree) >= 4, tree
        if how == "sigkill":
            host.send_signal(signal.SIGKILL)
        elif how == "sigterm":
            host.send_signal(signal.SIGTERM)
        else:
            assert host.stdin is not None
            host.stdin.write("go\n")
            host.stdin.flush()
        code: Optional[int] = host.wait(timeout=20)
        if how == "exit":
            assert code == 0
        else:
            assert code in (-signal.SIGKILL, -signal.SIGTERM), code
        gone = wait_for(lambda: not marked(mark), 10.0)
        left = marked(mark)
        assert gone, f"processes outlived the host ({how}): {left}"
    finally:
        for pid, _ in marked(mark):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if host.poll() is None:
            host.kill()
            host.wait()
