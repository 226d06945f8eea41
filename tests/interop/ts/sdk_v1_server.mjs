#!/usr/bin/env node
// A stdio MCP server on the official TypeScript SDK v1 (@modelcontextprotocol/sdk 1.32.2, pinned
// in package.json): legacy lineage only (the v1 SDK speaks up to 2025-11-25 and answers
// server/discover with -32601). Used behind `mcpcore gateway` by tests/rust/gateway_real.rs.
//
// Tools: echo(text) -> text; pid() -> this process's pid (tells a restarted server from the
// first); ask() -> elicits {name} from the client (a real elicitation/create request) and
// returns "hello NAME". Resource: v1://note (text "a note from the v1 SDK"). Prompt: greet(name).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'mcpcore-interop-ts-v1-server', version: '0.1.0' });

server.registerTool('echo', { description: 'Echoes the text.', inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));

server.registerTool('pid', { description: "This server's process id." }, async () => ({
  content: [{ type: 'text', text: String(process.pid) }],
}));

server.registerTool('ask', { description: 'Asks the user for a name.' }, async () => {
  const r = await server.server.elicitInput({
    message: 'Your name, please?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  });
  return { content: [{ type: 'text', text: r.action === 'accept' ? `hello ${r.content?.name}` : `no name (${r.action})` }] };
});

server.registerResource('note', 'v1://note', { mimeType: 'text/plain' }, async (uri) => ({
  contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'a note from the v1 SDK' }],
}));

server.registerPrompt('greet', { description: 'Greets someone.', argsSchema: { name: z.string() } }, ({ name }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}.` } }],
}));

await server.connect(new StdioServerTransport());
