#!/usr/bin/env node
// A Skills extension server (SEP-2640) built with the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0, `ext/skills/node` loadSkills): every skill under DIR
// served on stdio in either era, for the mcpcore clients (tests/rust/skills.rs).
//
// Usage: node sdk_skills_server.mjs DIR
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { loadSkills } from '@modelcontextprotocol/server/ext/skills/node';

const dir = process.argv[2];
if (!dir) {
    process.stderr.write('usage: sdk_skills_server.mjs DIR\n');
    process.exit(2);
}
const skills = await loadSkills(dir, { strict: true });
// serveStdio: the opening message picks the era (initialize: 2025-11-25; server/discover or a
// request with the protocol version in _meta: 2026-07-28), one server per connection.
serveStdio(() => {
    const mcp = new McpServer({ name: 'mcpcore-interop-ts-skills', version: '0.1.0' });
    skills.attach(mcp);
    return mcp;
});
