"""A Skills extension server (SEP-2640) built with fastmcp (pinned in
bindings-python/requirements-test.txt): every skill under DIR, served on stdio by
``SkillsDirectoryProvider(experimental_skills=True)`` and ``SkillsExtension``, for the mcpcore
client (tests/rust/skills.rs). fastmcp answers the skills methods on 2026-07-28 only.

Usage: python fastmcp_skills_server.py DIR
"""

import sys

from fastmcp import FastMCP
from fastmcp.server.providers.skills import SkillsDirectoryProvider
from fastmcp.skills.extension import SkillsExtension

mcp = FastMCP("fastmcp-skills")
provider = SkillsDirectoryProvider(roots=sys.argv[1], experimental_skills=True, supporting_files="resources")
mcp.add_provider(provider)
mcp.add_extension(SkillsExtension(providers=[provider]))
mcp.run(show_banner=False)
