// Benchmark peer server on the official TypeScript SDK v1 (@modelcontextprotocol/sdk 1.32.2):
// McpServer + registerTool('echo'); StdioServerTransport on stdio; on HTTP the sessionful
// StreamableHTTPServerTransport wiring of the SDK's README (one transport per session).
//   node ts_v1_server.mjs                        # stdio
//   node ts_v1_server.mjs --http 127.0.0.1:PORT  # http://127.0.0.1:PORT/mcp
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

function build() {
  const server = new McpServer({ name: 'bench-ts-v1', version: '0.1.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the text unchanged.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] })
  );
  return server;
}

const at = process.argv.indexOf('--http');
if (at === -1) {
  await build().connect(new StdioServerTransport());
} else {
  const addr = process.argv[at + 1];
  const i = addr.lastIndexOf(':');
  const sessions = new Map();
  const readBody = (req) =>
    new Promise((ok, fail) => {
      const parts = [];
      req.on('data', (c) => parts.push(c));
      req.on('end', () => ok(parts.length ? JSON.parse(Buffer.concat(parts).toString('utf8')) : undefined));
      req.on('error', fail);
    });
  const srv = http.createServer(async (req, res) => {
    try {
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      const sid = req.headers['mcp-session-id'];
      let transport = sid ? sessions.get(sid) : undefined;
      if (!transport) {
        if (sid || !isInitializeRequest(body)) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }));
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => sessions.set(id, transport),
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await build().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  srv.listen(Number(addr.slice(i + 1)), addr.slice(0, i), () => {
    console.log(`listening on http://${addr.slice(0, i)}:${srv.address().port}/mcp`);
  });
  const stop = () => srv.close(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
