// Benchmark peer server on the official TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0,
// @modelcontextprotocol/node 2.1.2): McpServer + registerTool('echo'), the SDK's entry points with
// their defaults: serveStdio(factory) on stdio; createMcpHandler(factory) (2026-07-28 per request,
// legacy 'stateless' fallback) behind toNodeHandler on HTTP.
//   node ts_v2_server.mjs                        # stdio
//   node ts_v2_server.mjs --http 127.0.0.1:PORT  # http://127.0.0.1:PORT/mcp
import http from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

function factory() {
  const server = new McpServer({ name: 'bench-ts-v2', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'echo',
    { description: 'Returns the text unchanged.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] })
  );
  return server;
}

const at = process.argv.indexOf('--http');
if (at === -1) {
  serveStdio(factory);
} else {
  const addr = process.argv[at + 1];
  const i = addr.lastIndexOf(':');
  const handler = toNodeHandler(createMcpHandler(factory));
  const srv = http.createServer((req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  srv.listen(Number(addr.slice(i + 1)), addr.slice(0, i), () => {
    console.log(`listening on http://${addr.slice(0, i)}:${srv.address().port}/mcp`);
  });
  const stop = () => srv.close(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
