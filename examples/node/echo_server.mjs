#!/usr/bin/env node
// The example contract's echo server in Node: tools `echo` and `add`.
//
//   node echo_server.mjs                        # stdio, both lineages
//   node echo_server.mjs --http 127.0.0.1:PORT  # HTTP on /mcp (prints "listening on URL")
import { Server } from 'mcpcore';

const server = new Server({ name: 'mcpcore-echo-node', version: '0.1.0' });

server.tool(
  'echo',
  {
    description: 'Returns the text unchanged.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  ({ text }) => text
);

server.tool(
  'add',
  {
    description: 'Adds two numbers.',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  },
  async ({ a, b }) => ({ sum: a + b })
);

const at = process.argv.indexOf('--http');
if (at === -1) {
  await server.serveStdio();
} else {
  const [host, port] = splitHostPort(process.argv[at + 1] ?? '127.0.0.1:0');
  const serving = await server.serveHttp({ host, port });
  console.log(`listening on ${serving.url}`);
  const stop = () => serving.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await serving.wait();
}

function splitHostPort(s) {
  const i = s.lastIndexOf(':');
  return [s.slice(0, i).replace(/^\[|\]$/g, ''), Number(s.slice(i + 1))];
}
