// Benchmark peer server on the official TypeScript SDK v1 (@modelcontextprotocol/sdk 1.32.2):
// McpServer + registerTool('echo'); StdioServerTransport on stdio; on HTTP the sessionful
// StreamableHTTPServerTransport wiring of the SDK's README (one transport per session).
//   node ts_v1_server.mjs [--catalogue]                                  # stdio
//   node ts_v1_server.mjs --http 127.0.0.1:PORT [--best] [--catalogue]   # http://127.0.0.1:PORT/mcp
// HTTP configurations: defaults = SSE answers; --best = `enableJsonResponse: true` on the
// transport (the SDK's documented JSON-answer switch). The body is read here (no limit).
// --catalogue adds 1,000 tools tool_0000... and 10,000 resources bench://catalogue/00000...,
// registered on each session's McpServer. `touch` calls sendToolListChanged() on every session's
// McpServer, which goes out on that session's GET stream (W10).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

const argv = process.argv.slice(2);
const catalogue = argv.includes('--catalogue');
const servers = new Set(); // every session's McpServer, for `touch`
const pad = (n, w) => String(n).padStart(w, '0');

function build() {
  const server = new McpServer({ name: 'bench-ts-v1', version: '0.1.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the text unchanged.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] })
  );
  server.registerTool('touch', { description: 'Announces a tool-list change (W10).' }, async () => {
    for (const s of servers) s.sendToolListChanged();
    return { content: [{ type: 'text', text: `notified ${servers.size} sessions` }] };
  });
  if (catalogue) {
    for (let i = 0; i < 1000; i++) {
      const name = `tool_${pad(i, 4)}`;
      const inputSchema = { id: z.string().describe(`The item of tool ${i}.`), count: z.number().int().min(0).optional() };
      server.registerTool(name, { description: `Catalogue tool ${i}.`, inputSchema }, async () => ({ content: [{ type: 'text', text: name }] }));
    }
    for (let j = 0; j < 10000; j++) {
      const uri = `bench://catalogue/${pad(j, 5)}`;
      const name = `r${pad(j, 5)}`;
      server.registerResource(name, uri, { mimeType: 'text/plain' }, async () => ({ contents: [{ uri, mimeType: 'text/plain', text: name }] }));
    }
  }
  return server;
}

const at = process.argv.indexOf('--http');
if (at === -1) {
  // the stdio read buffer raised from its 10 MB default to 64 MiB (W11 sends 16 MiB)
  await build().connect(new StdioServerTransport(undefined, undefined, { maxBufferSize: 64 << 20 }));
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
          enableJsonResponse: argv.includes('--best'),
        });
        const server = build();
        servers.add(server);
        transport.onclose = () => {
          servers.delete(server);
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await server.connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  srv.listen(Number(addr.slice(i + 1)), addr.slice(0, i), () => {
    console.log(`listening on http://${addr.slice(0, i)}:${srv.address().port}/mcp`);
  });
  const stop = () => {
    srv.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 300).unref(); // open SSE streams would hold close() forever
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
