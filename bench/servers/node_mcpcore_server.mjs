// The mcpcore Node echo server for the benchmark: examples/node/echo_server.mjs's echo tool,
// resolved from bench/node_modules (the example resolves 'mcpcore' from examples/node).
//   node node_mcpcore_server.mjs                        # stdio
//   node node_mcpcore_server.mjs --http 127.0.0.1:PORT  # http://127.0.0.1:PORT/mcp
import { Server } from 'mcpcore';

const server = new Server({ name: 'bench-mcpcore-node', version: '0.1.0' });
server.tool(
  'echo',
  {
    description: 'Returns the text unchanged.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  ({ text }) => text
);

const at = process.argv.indexOf('--http');
if (at === -1) {
  await server.serveStdio();
} else {
  const addr = process.argv[at + 1];
  const i = addr.lastIndexOf(':');
  const serving = await server.serveHttp({ host: addr.slice(0, i), port: Number(addr.slice(i + 1)) });
  console.log(`listening on ${serving.url}`);
  const stop = () => serving.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await serving.wait();
}
