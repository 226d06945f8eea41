// serveHttp({ store, stateKeys }): two examples/node/echo_server.mjs instances with
// `--store redis://…` share legacy sessions through a real redis-server started here, so a
// session initialized on one is served by the other; without `--store` the other answers 404
// (2025-11-25 basic/transports: an unknown session id is 404). Three of them behind nginx
// round-robin (no affinity) serve the official TypeScript SDK client
// (tests/interop/ts/sdk_scale_client.mjs). Needs redis-server and nginx (Debian; scripts/test.sh
// installs them): skipped with a message without them, except in CI, where it fails.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Server } from '../lib/mcpcore.js';
import { examples, spawnListening } from './helpers.mjs';
import { fileURLToPath } from 'node:url';

const STATE_KEY = '4d43505f7363616c655f6f75745f746573745f6b65795f33325f62797465735f21';
const LEGACY = '2025-11-25';
const echoServer = path.join(examples, 'echo_server.mjs');
const node = process.execPath;

function which(cmd) {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function ping(port) {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('error', () => resolve(false));
    sock.once('connect', () => sock.write('PING\r\n'));
    sock.once('data', (d) => {
      sock.destroy();
      resolve(d.toString() === '+PONG\r\n');
    });
  });
}

async function post(url, body, session) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LEGACY,
  };
  if (session) headers['mcp-session-id'] = session;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  let text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    text = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).find(Boolean) ?? '';
  }
  return { status: res.status, session: res.headers.get('mcp-session-id'), body: text ? JSON.parse(text) : null };
}

async function initialize(url) {
  const r = await post(url, {
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'scale-out-test', version: '0' } },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result.protocolVersion, LEGACY);
  assert.ok(r.session);
  assert.equal((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, r.session)).status, 202);
  return r.session;
}

const callEcho = (url, session, text, id = 2) =>
  post(url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } }, session);

const redisExe = which('redis-server');
const skip = redisExe === null && !process.env.CI ? 'redis-server is missing: apt-get install redis-server' : false;

describe('serveHttp({ store })', { skip }, () => {
  let redis;
  let dir;
  let redisUrl;
  const children = [];
  const start = async (args, env) => {
    const s = await spawnListening(node, [echoServer, '--http', '127.0.0.1:0', ...args], { env });
    children.push(s);
    return s;
  };

  before(async () => {
    assert.ok(redisExe, 'redis-server is missing (scripts/test.sh installs it)');
    const port = await freePort();
    dir = mkdtempSync(path.join(os.tmpdir(), 'mcpcore-redis-'));
    redis = spawn(redisExe, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    const deadline = Date.now() + 10000;
    while (!(await ping(port))) {
      assert.ok(Date.now() < deadline, `redis-server did not answer PING on ${port}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    redisUrl = `redis://127.0.0.1:${port}/0`;
  });

  after(async () => {
    for (const c of children) await c.stop();
    redis?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('one legacy session across two instances', async () => {
    const env = { MCPCORE_STATE_KEY: STATE_KEY };
    const a = await start(['--store', redisUrl], env);
    const b = await start(['--store', redisUrl], env);
    const session = await initialize(a.url);
    for (const [i, [srv, text]] of [[b, 'on B'], [a, 'on A'], [b, 'on B again']].entries()) {
      const r = await callEcho(srv.url, session, text, 10 + i);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.result.content[0].text, text);
    }
  });

  test('two Servers on one store share their event occurrences (a cursor of one is good on the other)', async () => {
    const servers = [0, 1].map((i) => {
      const s = new Server({ name: `events-${i}`, version: '1.0' });
      s.event('deployed', { description: 'A service was deployed.' });
      return s;
    });
    const servings = [];
    for (const s of servers) servings.push(await s.serveHttp({ port: 0, store: redisUrl, stateKeys: STATE_KEY }));
    const [first, second] = await Promise.all(servings.map((sv) => Client.connectHttp(sv.url)));
    try {
      const start = (await first.request('events/poll', { name: 'deployed', arguments: {}, cursor: null })).cursor;
      servers[0].emit('deployed', { service: 'api' });
      let got = [];
      for (let i = 0; i < 200 && got.length === 0; i++) {
        got = (await second.request('events/poll', { name: 'deployed', arguments: {}, cursor: start })).events;
        if (got.length === 0) await new Promise((r) => setTimeout(r, 50));
      }
      assert.deepEqual(got.map((e) => e.data), [{ service: 'api' }]);
    } finally {
      await first.close();
      await second.close();
      for (const sv of servings) await sv.shutdown();
    }
  });

  test('without --store the other instance answers 404', async () => {
    const a = await start([]);
    const b = await start([]);
    const session = await initialize(a.url);
    assert.equal((await callEcho(a.url, session, 'here')).status, 200);
    assert.equal((await callEcho(b.url, session, 'there')).status, 404);
  });

  test('three instances behind nginx serve the official TypeScript client', async (t) => {
    const nginx = which('nginx') ?? (existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : null);
    if (nginx === null && !process.env.CI) return t.skip('nginx is missing: apt-get install nginx');
    assert.ok(nginx, 'nginx is missing (scripts/test.sh installs it)');
    const client = fileURLToPath(new URL('../../tests/interop/ts/sdk_scale_client.mjs', import.meta.url));
    assert.ok(existsSync(client), client);
    const lb = await freePort();
    const ports = [await freePort(), await freePort(), await freePort()];
    const env = { MCPCORE_STATE_KEY: STATE_KEY };
    for (const p of ports) {
      const s = await spawnListening(node, [echoServer, '--http', `127.0.0.1:${p}`, '--store', redisUrl,
        '--allowed-host', `127.0.0.1:${lb}`], { env });
      children.push(s);
    }
    const d = mkdtempSync(path.join(os.tmpdir(), 'mcpcore-nginx-'));
    const servers = ports.map((p) => `server 127.0.0.1:${p};`).join(' ');
    writeFileSync(path.join(d, 'nginx.conf'), `worker_processes 1; error_log ${d}/error.log warn; pid ${d}/nginx.pid;
daemon off; events { worker_connections 64; }
http { log_format mcp '$http_mcp_session_id|$request_method|$status|$upstream_addr'; access_log ${d}/access.log mcp;
client_body_temp_path ${d}/b; proxy_temp_path ${d}/p; fastcgi_temp_path ${d}/f; uwsgi_temp_path ${d}/u; scgi_temp_path ${d}/s;
upstream mcp { ${servers} }
server { listen 127.0.0.1:${lb}; location / { proxy_pass http://mcp; proxy_http_version 1.1;
proxy_set_header Connection ""; proxy_set_header Host $http_host; proxy_buffering off; } } }
`);
    const proxy = spawn(nginx, ['-p', d, '-e', `${d}/error.log`, '-c', `${d}/nginx.conf`], { stdio: 'ignore' });
    try {
      const deadline = Date.now() + 10000;
      while (!(await new Promise((r) => net.connect(lb, '127.0.0.1').once('connect', function () { this.destroy(); r(true); }).once('error', () => r(false))))) {
        assert.ok(Date.now() < deadline, 'nginx did not listen');
        await new Promise((r) => setTimeout(r, 20));
      }
      const url = `http://127.0.0.1:${lb}/mcp`;
      const run = (mode, calls) => JSON.parse(execFileSync(node, [client, '--mode', mode, '--url', url, '--calls', String(calls)],
        { encoding: 'utf8', timeout: 60000 }));
      const legacy = run('legacy', 12);
      assert.equal(legacy.protocolVersion, LEGACY);
      assert.deepEqual(legacy.echoes, Array.from({ length: 12 }, (_, i) => `call ${i + 1}`));
      const modern = run('modern', 3);
      assert.equal(modern.protocolVersion, '2026-07-28');
      assert.deepEqual(modern.echoes, ['call 1', 'call 2', 'call 3']);
      const lines = readFileSync(path.join(d, 'access.log'), 'utf8').trim().split('\n').map((l) => l.split('|'));
      const session = lines.find((f) => f[1] === 'DELETE')[0];
      const served = new Set(lines.filter((f) => f[0] === session && f[1] === 'POST' && f[2].startsWith('2')).map((f) => f[3]));
      assert.deepEqual([...served].sort(), ports.map((p) => `127.0.0.1:${p}`).sort(), JSON.stringify(lines));
    } finally {
      proxy.kill('SIGTERM');
      await new Promise((r) => (proxy.exitCode !== null ? r() : proxy.once('exit', r)));
      rmSync(d, { recursive: true, force: true });
    }
  });

  test('a store without state keys is refused, naming MCPCORE_STATE_KEY', async () => {
    const server = new Server({ name: 'scale-out-settings', version: '0' });
    const saved = process.env.MCPCORE_STATE_KEY;
    delete process.env.MCPCORE_STATE_KEY;
    try {
      await assert.rejects(server.serveHttp({ store: redisUrl }), /MCPCORE_STATE_KEY/);
      await assert.rejects(server.serveHttp({ store: 'memcached://x', stateKeys: STATE_KEY }), /store "memcached/);
      const serving = await server.serveHttp({ store: redisUrl, stateKeys: [STATE_KEY] });
      await serving.shutdown();
    } finally {
      if (saved !== undefined) process.env.MCPCORE_STATE_KEY = saved;
    }
  });
});
