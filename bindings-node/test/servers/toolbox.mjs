#!/usr/bin/env node
// A Node test server exercising JS handlers: echo, add, boom (sync throw), reject (rejected
// Promise), rpc (McpError with a code), slow {ms}, progress {steps}, die (exits mid-call).
//
//   node toolbox.mjs            # stdio
//   node toolbox.mjs --http     # HTTP on 127.0.0.1, free port; prints "listening on URL"
import { Server, McpError, InvalidInput } from '../../lib/mcpcore.js';

const obj = (properties, required = Object.keys(properties)) => ({ type: 'object', properties, required });
const server = new Server({ name: 'toolbox-node', version: '0.1.0', instructions: 'test tools' });

server.tool('echo', { description: 'Echoes.', inputSchema: obj({ text: { type: 'string' } }) }, ({ text }) => text);
server.tool(
  'add',
  {
    inputSchema: obj({ a: { type: 'number' }, b: { type: 'number' } }),
    outputSchema: obj({ sum: { type: 'number' } }),
  },
  async ({ a, b }) => ({ sum: a + b })
);
server.tool('boom', {}, () => {
  throw new Error('kaboom');
});
server.tool('reject', {}, () => Promise.reject(new TypeError('rejected on purpose')));
server.tool('rpc', {}, () => {
  throw new McpError('custom failure', { code: -32042, data: { why: 'test' } });
});
// mcpcore's own error class (as a nested call rejects with it): a failure, not its code.
server.tool('nested', {}, () => {
  throw new InvalidInput('a nested call failed', { code: -32602 });
});
// The host's own subclass of one: the JSON-RPC error it names.
class Teapot extends InvalidInput {}
server.tool('teapot', {}, () => {
  throw new Teapot('short and stout', { code: -32418 });
});
server.tool('slow', { inputSchema: obj({ ms: { type: 'number' } }) }, ({ ms }) => new Promise((r) => setTimeout(() => r(`slept ${ms}`), ms)));
server.tool('progress', { inputSchema: obj({ steps: { type: 'integer' } }) }, async ({ steps }, ctx) => {
  for (let i = 1; i <= steps; i++) {
    ctx.reportProgress(i, steps, `step ${i}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return `did ${steps} steps (wanted progress: ${ctx.wantsProgress})`;
});
server.tool('die', {}, () => {
  setTimeout(() => process.exit(3), 20);
  return new Promise(() => {});
});
server.tool('whoami', {}, (_args, ctx) => ({ requestId: ctx.requestId, protocolVersion: ctx.protocolVersion }));

if (process.argv.includes('--http')) {
  const serving = await server.serveHttp({ port: 0 });
  console.log(`listening on ${serving.url}`);
  process.once('SIGTERM', () => serving.shutdown());
  await serving.wait();
} else {
  await server.serveStdio();
  // Calls the client abandoned may still hold timers; stdin closed, so we are done.
  process.exit(0);
}
