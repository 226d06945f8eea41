// Benchmark peer server on the official TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0,
// @modelcontextprotocol/node 2.1.2): McpServer + registerTool('echo'), the SDK's entry points:
// serveStdio(factory) on stdio; createMcpHandler(factory) (2026-07-28 per request, legacy
// 'stateless' fallback) behind toNodeHandler on HTTP.
//   node ts_v2_server.mjs [--catalogue]                                   # stdio
//   node ts_v2_server.mjs --http 127.0.0.1:PORT [--best] [--catalogue]    # http://127.0.0.1:PORT/mcp
//   node ts_v2_server.mjs --http 127.0.0.1:PORT --best --tools 60         # W12
// HTTP configurations (maxRequestBodySize, and on stdio maxBufferSize, raised to 64 MiB, for W11):
//   defaults  createMcpHandler(factory)
//   --best    createMcpHandler(factory, { responseMode: 'json' }): the SDK's JSON answers for
//             2026-07-28 requests (its legacy leg is stateless and SSE either way).
// --catalogue adds 1,000 tools tool_0000... (zod schemas, built once, registered on every
// instance the factory makes, as the SDK's per-request design requires) and 10,000 resources
// bench://catalogue/00000....; --tools N only the first N of those tools (W12). The tool `touch` calls the handler's notify.toolsChanged(), which
// reaches every open subscriptions/listen stream (W10).
import http from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

const argv = process.argv.slice(2);
const catalogue = argv.includes('--catalogue');
const toolsAt = argv.indexOf('--tools');
const catalogueTools = catalogue ? 1000 : toolsAt === -1 ? 0 : Number(argv[toolsAt + 1]);
let handler; // set on HTTP: `touch` publishes through it
const echoSchema = z.object({ text: z.string() });
const tools = Array.from({ length: catalogueTools }, (_, i) => [
  `tool_${String(i).padStart(4, '0')}`,
  `Catalogue tool ${i}.`,
  z.object({ id: z.string().describe(`The item of tool ${i}.`), count: z.number().int().min(0).optional() }),
]);
const resources = catalogue
  ? Array.from({ length: 10000 }, (_, j) => [`r${String(j).padStart(5, '0')}`, `bench://catalogue/${String(j).padStart(5, '0')}`])
  : [];

function factory() {
  const server = new McpServer({ name: 'bench-ts-v2', version: '0.1.0' }, { capabilities: { tools: { listChanged: true } } });
  server.registerTool('echo', { description: 'Returns the text unchanged.', inputSchema: echoSchema }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('touch', { description: 'Announces a tool-list change (W10).' }, async () => {
    handler?.notify.toolsChanged();
    return { content: [{ type: 'text', text: 'touched' }] };
  });
  for (const [name, description, inputSchema] of tools) {
    server.registerTool(name, { description, inputSchema }, async () => ({ content: [{ type: 'text', text: name }] }));
  }
  for (const [name, uri] of resources) {
    server.registerResource(name, uri, { mimeType: 'text/plain' }, async () => ({ contents: [{ uri, mimeType: 'text/plain', text: name }] }));
  }
  return server;
}

const at = argv.indexOf('--http');
if (at === -1) {
  // the stdio read buffer raised from its 10 MB default to 64 MiB (W11 sends 16 MiB)
  serveStdio(factory, { transport: new StdioServerTransport(undefined, undefined, { maxBufferSize: 64 << 20 }) });
} else {
  const addr = argv[at + 1];
  const i = addr.lastIndexOf(':');
  const options = { maxRequestBodySize: 64 << 20 };
  if (argv.includes('--best')) options.responseMode = 'json';
  handler = createMcpHandler(factory, options);
  const serve = toNodeHandler(handler, { maxRequestBodySize: 64 << 20 }); // the adapter has its own 4 MiB bound
  const srv = http.createServer((req, res) => {
    serve(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
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
