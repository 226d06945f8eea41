"""A stdio client and its child: a server exiting mid-call fails the call with its exit code; a
process outside the server's group holding its stdout delays the end only by the core's linger
and keeps the host alive no longer; a client outlives the asyncio loop it was made on."""

from __future__ import annotations

import subprocess
import sys
import time

from mcpcore import Client, ConnectionClosed

from conftest import PY, TOOLBOX, run_async


@run_async
async def test_a_server_exiting_mid_call_fails_the_call_with_its_exit_code() -> None:
    client = await Client.connect_stdio([PY, str(TOOLBOX)])
    try:
        assert (await client.call_tool("echo", {"text": "before"})).text == "before"
        try:
            await client.call_tool("die", {"code": 3})
            raise AssertionError("the call succeeded")
        except ConnectionClosed as e:
            assert "exited with code 3" in str(e), str(e)
    finally:
        await client.close()


def test_a_held_stdout_ends_the_connection_after_the_linger_and_keeps_nothing_alive() -> None:
    # `setsid sleep` leaves the server's process group holding its stdout: end of file never
    # comes, so the call ends a moment after the server exits.
    host = (
        "import asyncio, sys, time\n"
        "from mcpcore import Client\n"
        "async def main():\n"
        "    c = await Client.connect_stdio(['sh', '-c', 'setsid sleep 20 & exec \"$0\" \"$1\"', sys.argv[1], sys.argv[2]])\n"
        "    t = time.monotonic()\n"
        "    try:\n"
        "        await c.call_tool('sleep_sync', {'seconds': 0.1})\n"
        "        import os; os.kill((await c.call_tool('whoami')).data['pid'], 9)\n"
        "        await c.call_tool('sleep_sync', {'seconds': 30})\n"
        "    except Exception as e:\n"
        "        print('rejected', type(e).__name__, round((time.monotonic() - t) * 1000))\n"
        "asyncio.run(main())\n"
    )
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-c", host, PY, str(TOOLBOX)], capture_output=True, text=True, timeout=20)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("rejected ConnectionClosed"), out.stdout + out.stderr
    assert time.monotonic() - started < 15, "the host waited for the held pipe"


def test_a_client_outlives_the_loop_it_was_made_on() -> None:
    # `asyncio.run` twice: a reader of the child's stdout tied to the first loop would be gone
    # with it (and the pipe closed under the server).
    host = (
        "import asyncio, sys\n"
        "from mcpcore import Client\n"
        "c = asyncio.run(Client.connect_stdio([sys.argv[1], sys.argv[2]]))\n"
        "print(asyncio.run(c.call_tool('echo', {'text': 'second loop'})).text)\n"
        "print(asyncio.run(c.call_tool('echo', {'text': 'third loop'})).text)\n"
        "asyncio.run(c.close())\n"
    )
    out = subprocess.run([sys.executable, "-c", host, PY, str(TOOLBOX)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["second loop", "third loop"], out.stdout + out.stderr
