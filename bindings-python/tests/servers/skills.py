"""A Python server serving skills (the Skills extension, SEP-2640) on stdio: every skill under
the directory given as the first argument, plus one registered from code with ``@server.skill``.
Used by test_skills.py."""

import asyncio
import sys

from mcpcore import Server

server = Server("py-skills", "1.0")
server.skills(sys.argv[1])


@server.skill
def git_workflow() -> str:
    return "---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n"


asyncio.run(server.serve_stdio())
