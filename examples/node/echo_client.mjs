#!/usr/bin/env node
// The example contract's echo client in Node.
//
//   node echo_client.mjs URL [TEXT]               # HTTP
//   node echo_client.mjs [TEXT] -- CMD [ARGS...]  # spawn CMD, talk stdio
//
// Negotiates the lineage automatically, calls `echo`, prints the text and the protocol version;
// exits non-zero on any failure.
import { Client, McpError } from 'mcpcore';

async function main(argv) {
  const dash = argv.indexOf('--');
  const mine = dash === -1 ? argv : argv.slice(0, dash);
  const target = dash === -1 ? [] : argv.slice(dash + 1);
  const url = mine.find((a) => /^https?:\/\//.test(a));
  const text = mine.find((a) => a !== url) ?? 'hello from mcpcore (node)';
  let client;
  if (url) client = await Client.connectHttp(url);
  else if (target.length) client = await Client.connectStdio(target);
  else {
    console.error('usage: echo_client.mjs URL [TEXT] | echo_client.mjs [TEXT] -- CMD [ARGS...]');
    return 2;
  }
  try {
    const result = await client.callTool('echo', { text });
    const out = result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
    if (result.isError) {
      console.error(`echo_client: the tool failed: ${out}`);
      return 1;
    }
    console.log(out);
    console.log(`protocol ${client.protocolVersion}`);
    return 0;
  } finally {
    await client.close();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  const code = e instanceof McpError ? ` (code ${e.code})` : '';
  console.error(`echo_client: ${e.name}: ${e.message}${code}`);
  process.exitCode = 1;
}
