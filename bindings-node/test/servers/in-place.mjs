// A stdio server for test/stdio-serving.test.mjs: tools that tell which thread and which stack
// ran them, and tools that wait, report progress, watch for cancellation or answer at length.
import { McpError, Server } from '../../lib/mcpcore.js';

Error.stackTraceLimit = 50;
const server = new Server({ name: 'in-place', version: '1' });
// The stack of a synchronous handler: called in place from stdin's 'data' event
// (lib/stdio.js) when the frame is served on the JS thread.
server.tool('stack', {}, () => new Error('where').stack);
server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => text);
server.tool('big', { inputSchema: { type: 'object', properties: { n: { type: 'integer' } } } }, ({ n }) => 'é'.repeat(n));
server.tool('progress', {}, async (_a, ctx) => {
  for (let i = 1; i <= 3; i++) {
    ctx.reportProgress(i, 3);
    await new Promise((r) => setTimeout(r, 5));
  }
  return 'done';
});
server.tool('sync-progress', {}, (_a, ctx) => {
  ctx.reportProgress(1, 2);
  ctx.reportProgress(2, 2);
  return 'reported';
});
server.tool('wait', { inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } } }, ({ ms }, ctx) =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(`waited ${ms}`), ms);
    ctx.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      process.stderr.write('ABORTED\n');
      resolve('stopped');
    });
  }));
// Async answers that settle through ctx's native `settle` (lib/tools.js): a thenable that is
// not a Promise, a rejection, a rejection with a JSON-RPC code, bytes, and a late answer.
server.tool('thenable', {}, () => ({ then: (ok) => setTimeout(() => ok('from a thenable'), 1) }));
server.tool('rejects', {}, async () => {
  throw new Error('it failed');
});
server.tool('rejects-rpc', {}, async () => {
  throw new McpError('bad params here', { code: -32602, data: { field: 'x' } });
});
server.tool('async-json', {}, async () => ({ n: 1, list: ['a', 'b'] }));
// A Promise nothing references and that never settles; `gc` collects (node --expose-gc).
server.tool('never', {}, () => new Promise(() => {}));
server.tool('gc', {}, async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await new Promise((r) => setImmediate(r)); // napi finalizers run after the collection
  }
  return typeof globalThis.gc;
});
await server.serveStdio();
process.stderr.write('SERVED\n');
