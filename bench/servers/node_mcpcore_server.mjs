// The mcpcore Node echo server for the benchmark: examples/node/echo_server.mjs's echo tool,
// resolved from bench/node_modules (the example resolves 'mcpcore' from examples/node).
//   node node_mcpcore_server.mjs [--catalogue]                        # stdio
//   node node_mcpcore_server.mjs --http 127.0.0.1:PORT [--catalogue]  # http://127.0.0.1:PORT/mcp
// Library defaults, except maxBody (64 MiB, for W11). `touch` registers one more tool, so every
// open subscriptions/listen and legacy GET stream gets notifications/tools/list_changed (W10).
// --catalogue adds 1,000 tools tool_0000... and 10,000 resources bench://catalogue/00000....
// --tools N adds only the first N of those tools (W12's realistic stateless server).
// --pass-through adds one middleware that passes every request on (W6: the chain's cost).
import { Server } from 'mcpcore';

const argv = process.argv.slice(2);
const pad = (n, w) => String(n).padStart(w, '0');
const server = new Server({ name: 'bench-mcpcore-node', version: '0.1.0' });
server.tool(
  'echo',
  {
    description: 'Returns the text unchanged.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  ({ text }) => text
);
let touched = 0;
server.tool('touch', { description: 'Changes the tool list (W10).', inputSchema: { type: 'object' } }, () => {
  const n = touched++;
  server.tool(`touched_${n}`, { description: 'Added by touch.', inputSchema: { type: 'object' } }, () => 'touched');
  return `touched ${n}`;
});
// --pass-through: one middleware that passes every request on (the chain's cost, W6).
if (argv.includes('--pass-through')) server.use((request, next) => next(request));
const toolsAt = argv.indexOf('--tools');
const catalogueTools = argv.includes('--catalogue') ? 1000 : toolsAt === -1 ? 0 : Number(argv[toolsAt + 1]);
for (let i = 0; i < catalogueTools; i++) {
  const name = `tool_${pad(i, 4)}`;
  const inputSchema = {
    type: 'object',
    properties: { id: { type: 'string', description: `The item of tool ${i}.` }, count: { type: 'integer', minimum: 0 } },
    required: ['id'],
  };
  server.tool(name, { description: `Catalogue tool ${i}.`, inputSchema }, () => name);
}
if (argv.includes('--catalogue')) {
  for (let j = 0; j < 10000; j++) {
    const name = `r${pad(j, 5)}`;
    server.resource(`bench://catalogue/${pad(j, 5)}`, { name, mimeType: 'text/plain' }, () => name);
  }
}

const at = argv.indexOf('--http');
if (at === -1) {
  await server.serveStdio();
} else {
  const addr = argv[at + 1];
  const i = addr.lastIndexOf(':');
  const serving = await server.serveHttp({ host: addr.slice(0, i), port: Number(addr.slice(i + 1)), maxBody: 64 << 20,
    // W10 opens its 1,000 streams from one address: past the default per-client session quota.
    maxSessionsPerClient: 100_000 });
  console.log(`listening on ${serving.url}`);
  const stop = () => serving.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await serving.wait();
}
