#!/usr/bin/env node
// A Node MCP server whose tool calls a Python tool: its registry loads the Python echo server
// (examples/python/echo_server.py) and its own `shout` tool calls `python__echo` in process.
//   node calls_python.mjs PYTHON ECHO_SERVER_PY      # serves on stdio
import { Server } from 'mcpcore';

const [python, echoServer] = process.argv.slice(2);
const server = new Server({ name: 'node-calls-python', version: '1.0.0' });
await server.registry.loadConfig({ mcpServers: { python: { command: python, args: [echoServer] } } });
server.tool(
  'shout',
  { description: 'Echoes the text through the Python tool, in capitals.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  async ({ text }) => {
    const r = await server.registry.callTool('python__echo', { text });
    return r.content[0].text.toUpperCase() + '!';
  }
);
await server.serveStdio();
