#!/usr/bin/env node
// The official TypeScript SDK client (@modelcontextprotocol/client, pinned here) calling tools:
//   node sdk_calls.mjs URL '[["tool", {"arg": 1}], ...]'
// Prints "tools: a, b, ..." then one "tool{args} -> text" line per call; exit 1 on failure.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, callsJson = '[]'] = process.argv.slice(2);
const client = new Client({ name: 'mcpcore-demo-ts-client', version: '0.1.0' }, { versionNegotiation: { mode: 'auto' } });
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  console.log(`tools: ${tools.map((t) => t.name).sort().join(', ')}`);
  for (const [name, args] of JSON.parse(callsJson)) {
    const r = await client.callTool({ name, arguments: args });
    const text = r.content.filter((c) => c.type === 'text').map((c) => c.text).join(' ');
    console.log(`${name}${JSON.stringify(args)} -> ${text}`);
  }
  await client.close();
} catch (e) {
  console.error(`sdk_calls.mjs: error: ${e.message}`);
  process.exit(1);
}
