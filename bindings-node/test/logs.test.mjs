// The engine's own log records reach JS: setLogger(handler) gets the HTTP server's request log
// (debug: JSON-RPC method and id, status, time), and DEBUG=mcpcore prints it to stderr.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Server, Client, setLogger, InvalidInput } from '../lib/mcpcore.js';
import { run, pkgDir } from './helpers.mjs';

function server() {
  const s = new Server({ name: 'logged', version: '1.0' });
  s.tool('echo', {}, ({ text }) => text);
  return s;
}

test('setLogger receives each HTTP request at debug level, and stops on null', async () => {
  const records = [];
  setLogger((r) => records.push(r));
  const serving = await server().serveHttp();
  try {
    const c = await Client.connectHttp(serving.url, { lineage: 'legacy' });
    await c.callTool('echo', { text: 'x' });
    await c.close();
  } finally {
    await serving.shutdown();
    setLogger(null);
  }
  const call = records.find((r) => r.target === 'mcpcore::http' && r.message.includes('tools/call'));
  assert.ok(call, JSON.stringify(records));
  assert.equal(call.level, 'debug');
  assert.match(call.message, /^POST tools\/call id=\S+ -> 200 in [0-9.]+ ms$/);
  assert.ok(records.some((r) => r.message.startsWith('POST initialize id=')));
  // The legacy session's connection logs the JSON-RPC outcome too.
  assert.ok(records.some((r) => r.target === 'mcpcore::server' && /^tools\/call id=\S+ -> ok in /.test(r.message)));
  assert.throws(() => setLogger(() => {}, { level: 'loud' }), InvalidInput);
});

test('DEBUG=mcpcore prints the request log to stderr', async () => {
  const script = `
    import { Server, Client } from ${JSON.stringify(pkgDir + '/lib/mcpcore.js')};
    const s = new Server({ name: 'x', version: '1' });
    s.tool('echo', {}, ({ text }) => text);
    const serving = await s.serveHttp();
    const c = await Client.connectHttp(serving.url);
    await c.callTool('echo', { text: 'x' });
    await c.close();
    await serving.shutdown();`;
  const out = await run(process.execPath, ['--input-type=module', '-e', script], { env: { DEBUG: 'express:*,mcpcore' } });
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stderr, /^mcpcore:http POST tools\/call id=\S+ -> 200 in [0-9.]+ ms$/m);
  const quiet = await run(process.execPath, ['--input-type=module', '-e', script], { env: { DEBUG: '' } });
  assert.equal(quiet.stderr, '');
});

test('a stdio server logs each request with its JSON-RPC outcome (DEBUG=mcpcore)', async () => {
  const script = `
    import { Server } from ${JSON.stringify(pkgDir + '/lib/mcpcore.js')};
    const s = new Server({ name: 'x', version: '1' });
    s.tool('echo', {}, ({ text }) => text);
    await s.serveStdio();`;
  const { Client } = await import('../lib/mcpcore.js');
  // The server's stderr goes to a file (through sh), read once the client closed the server.
  const { mkdtempSync, readFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const path = (await import('node:path')).default;
  const log = path.join(mkdtempSync(path.join(tmpdir(), 'mcpcore-log-')), 'stderr.txt');
  const c = await Client.connectStdio('/bin/sh', ['-c', `DEBUG=mcpcore exec "$0" --input-type=module -e "$1" 2>"$2"`, process.execPath, script, log]);
  assert.equal(c.protocolVersion, '2026-07-28');
  await c.callTool('echo', { text: 'x' });
  await assert.rejects(c.callTool('nope', {}));
  await c.close();
  const text = readFileSync(log, 'utf8');
  assert.match(text, /^mcpcore:server tools\/call id=\S+ -> ok in [0-9.]+ ms$/m, text);
  assert.match(text, /^mcpcore:server tools\/call id=\S+ -> error -32602 in [0-9.]+ ms$/m, text);
});
