#!/usr/bin/env node
// A Skills extension host (SEP-2640) built with the official TypeScript SDK v2
// (@modelcontextprotocol/client 2.4.0, `ext/skills` SkillsClient) against an mcpcore server
// (tests/rust/skills.rs): lists the skills, gets the first, reads (and verifies) its SKILL.md
// and one supporting file, reads a directory, and prints one JSON line.
//
// Usage: node sdk_skills_client.mjs [--modern] URL | -- COMMAND ARGS...
//   --modern pins 2026-07-28 (server/discover); without it the SDK's default connect
//   (initialize, 2025-11-25).
// Output: {"protocolVersion", "supported", "directoryRead", "uris", "got", "frontmatter",
//          "skillMd", "verified", "file": {uri, text, verified}, "directory": [names]}
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';

const args = process.argv.slice(2);
const modern = args[0] === '--modern';
if (modern) args.shift();
const dash = args.indexOf('--');
const transport =
    dash >= 0
        ? new StdioClientTransport({ command: args[dash + 1], args: args.slice(dash + 2) })
        : new StreamableHTTPClientTransport(new URL(args[0]));
const client = new Client(
    { name: 'mcpcore-interop-ts-skills-client', version: '0.1.0' },
    modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}
);
try {
    await client.connect(transport);
    const skills = new SkillsClient(client);
    const { skills: entries } = await skills.list();
    const { skill } = await skills.get(entries[0].uri);
    const md = await skills.read(skill);
    const listed = skill.resources.find((r) => r.uri !== skill.uri);
    const file = await skills.read(skill, listed.uri);
    const root = skill.uri.slice(0, -'/SKILL.md'.length);
    const dir = skills.directoryRead ? await skills.readDirectory(root) : null;
    const out = {
        protocolVersion: client.getNegotiatedProtocolVersion(),
        supported: skills.supported,
        directoryRead: skills.directoryRead,
        uris: entries.map((e) => e.uri),
        got: skill.uri,
        frontmatter: md.frontmatter,
        skillMd: md.text,
        verified: md.verified,
        file: { uri: file.uri, text: new TextDecoder().decode(file.bytes), verified: file.verified },
        directory: dir ? dir.resources.map((r) => r.name) : null
    };
    process.stdout.write(JSON.stringify(out) + '\n');
    await client.close();
} catch (e) {
    process.stderr.write(`sdk_skills_client.mjs: error: ${e?.stack ?? e}\n`);
    process.exit(1);
}
