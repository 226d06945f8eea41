// Serving: serveHttp and nodeHandler (http.createServer, Express-style pre-parsed bodies) in
// both lineages and the 2024-11-05 SSE transport, served to our client and the Rust client; and
// processes exiting on their own once servers and clients are closed.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { Server, Client, InvalidInput } from '../lib/mcpcore.js';
import { rustBin, run, textOf, pkgDir } from './helpers.mjs';

function makeServer() {
  const server = new Server({ name: 'served', version: '2.0' });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => text);
  server.tool('progress', {}, async (_a, ctx) => {
    for (let i = 1; i <= 3; i++) {
      ctx.reportProgress(i, 3);
      await new Promise((r) => setTimeout(r, 5));
    }
    return 'done';
  });
  server.tool('slow', {}, () => new Promise((r) => setTimeout(() => r('late'), 400)));
  return server;
}

const MODES = [
  { lineage: 'modern', version: '2026-07-28' },
  { lineage: 'legacy', version: '2025-11-25' },
  { lineage: 'legacy', version: '2024-11-05', transport: 'sse' },
];

async function exercise(url, { lineage, version, transport }) {
  const target = transport === 'sse' ? url.replace(/\/mcp$/, '/sse') : url;
  const c = await Client.connectHttp(target, { lineage, protocolVersion: version, transport: transport ?? 'auto' });
  try {
    assert.equal(c.protocolVersion, version);
    assert.equal(c.serverInfo.name, 'served');
    assert.equal(textOf(await c.callTool('echo', { text: `hi ${version}` })), `hi ${version}`);
    const seen = [];
    assert.equal(textOf(await c.callTool('progress', {}, { onProgress: (p) => seen.push(p.progress) })), 'done');
    assert.deepEqual(seen, [1, 2, 3]);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await assert.rejects(c.callTool('slow', {}, { signal: ac.signal }), (e) => e.kind === 'cancelled');
    assert.equal(textOf(await c.callTool('echo', { text: 'after abort' })), 'after abort');
  } finally {
    await c.close();
  }
}

describe('serveHttp', () => {
  let server;
  let serving;
  before(async () => {
    server = makeServer();
    serving = await server.serveHttp({ port: 0 });
  });
  after(async () => serving.shutdown());
  for (const mode of MODES) {
    test(`${mode.version} ${mode.transport ?? 'streamable'}`, async () => exercise(serving.url, mode));
  }
  test('the Rust echo_client reaches it', async () => {
    const out = await run(rustBin('echo_client'), [serving.url, 'from rust']);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, 'from rust\nprotocol 2026-07-28\n');
  });
  test('url, port and bad options', async () => {
    assert.match(serving.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.equal(new URL(serving.url).port, String(serving.port));
    await assert.rejects(server.serveHttp({ host: 'localhost' }), InvalidInput);
    await assert.rejects(server.serveHttp({ responseMode: 'xml' }), InvalidInput);
    await assert.rejects(server.serveHttp({ maxConnections: 0 }), /maxConnections must be positive/);
    await assert.rejects(server.serveHttp({ headerTimeoutMs: 0 }), /headerTimeoutMs must be positive/);
  });
  test('headerTimeoutMs and maxConnections bound the connections', async () => {
    const s = await server.serveHttp({ headerTimeoutMs: 500, maxConnections: 2 });
    const net = await import('node:net');
    const connect = () => new Promise((resolve, reject) => {
      const sock = net.connect(s.port, '127.0.0.1', () => resolve(sock));
      sock.once('error', reject);
    });
    const readToClose = (sock) => new Promise((resolve) => {
      const chunks = [];
      sock.on('data', (c) => chunks.push(c));
      sock.on('close', () => resolve(Buffer.concat(chunks).toString()));
    });
    const started = Date.now();
    const idle = await connect();
    const idleDone = readToClose(idle);
    await new Promise((r) => setTimeout(r, 50)); // idle is the older one
    const held = await connect();
    const heldDone = readToClose(held);
    await new Promise((r) => setTimeout(r, 50));
    // Past the cap the oldest idle connection is closed to admit the newcomer (503 only when
    // every connection is busy: the Rust tests).
    const over = await connect();
    const answered = readToClose(over);
    over.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}');
    assert.equal(await idleDone, '', 'closed to make room');
    assert.ok(Date.now() - started < 450, `${Date.now() - started} ms`);
    assert.match(await answered, /^HTTP\/1\.1 406/);
    assert.equal(await heldDone, '', 'closed by the head timeout');
    assert.ok(Date.now() - started >= 400);
    const c = await Client.connectHttp(s.url);
    assert.equal(textOf(await c.callTool('echo', { text: 'room' })), 'room');
    await c.close();
    await s.shutdown();
  });
  test('maxSessionsPerClient ends a client\'s idle session for its next; the limits are read', async () => {
    const s = await server.serveHttp({
      maxSessionsPerClient: 1, maxSessions: 10, sessionIdleMs: 60000, maxBacklog: 1 << 20,
      maxInFlight: 4, maxTasksPerClient: 2, peerRequestTimeoutMs: 5000,
    });
    const post = (body, session) => fetch(s.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream',
        ...(session ? { 'mcp-session-id': session } : {}),
      },
      body: JSON.stringify(body),
    });
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: {
      protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    const first = (await post(init)).headers.get('mcp-session-id');
    const second = (await post(init)).headers.get('mcp-session-id');
    assert.ok(first && second && first !== second);
    assert.equal((await post(ping, first)).status, 404, 'the first session made room');
    assert.equal((await post(ping, second)).status, 200);
    await s.shutdown();
    await assert.rejects(server.serveHttp({ maxInFlight: 0 }), /maxInFlight must be positive/);
    await assert.rejects(server.serveHttp({ maxSessionsPerClient: 0 }), /maxSessionsPerClient must be positive/);
  });
  test('responseMode sse and json', async () => {
    for (const responseMode of ['sse', 'json']) {
      const s = await server.serveHttp({ responseMode });
      const c = await Client.connectHttp(s.url);
      assert.equal(textOf(await c.callTool('echo', { text: responseMode })), responseMode);
      await c.close();
      await s.shutdown();
    }
  });
});

describe('serveHttp on a Unix socket', () => {
  test('unix: the same endpoint on a socket file of mode 0600, removed at close', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpcore-node-uds-'));
    const sock = path.join(dir, 'node.sock');
    const serving = await makeServer().serveHttp({ unix: sock });
    try {
      assert.equal(fs.statSync(sock).mode & 0o777, 0o600);
      assert.match(serving.url, /^http\+unix:\/\/%2F/);
      for (const url of [serving.url, `unix:${sock}`]) {
        const c = await Client.connectHttp(url);
        assert.equal(textOf(await c.callTool('echo', { text: 'via socket' })), 'via socket');
        await c.close();
      }
    } finally {
      await serving.shutdown();
    }
    assert.equal(fs.existsSync(sock), false);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('nodeHandler', () => {
  let server;
  let outer;
  let url;
  before(async () => {
    server = makeServer();
    outer = http.createServer(server.nodeHandler());
    outer.listen(0, '127.0.0.1');
    await once(outer, 'listening');
    url = `http://127.0.0.1:${outer.address().port}/mcp`;
  });
  after(async () => {
    outer.closeAllConnections();
    outer.close();
    await server.close();
  });
  for (const mode of MODES) {
    test(`in http.createServer: ${mode.version} ${mode.transport ?? 'streamable'}`, async () => exercise(url, mode));
  }
  test('the Rust echo_client reaches it', async () => {
    const out = await run(rustBin('echo_client'), [url, 'through node http']);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, 'through node http\nprotocol 2026-07-28\n');
  });
  test('an Express-style handler whose body was already parsed', async () => {
    const handler = server.nodeHandler();
    const express = http.createServer(async (req, res) => {
      // what express.json() does: consume the stream, set req.body, call the next handler
      if (req.method === 'POST') {
        let raw = '';
        for await (const chunk of req) raw += chunk;
        req.body = JSON.parse(raw);
        req.originalUrl = req.url;
      }
      handler(req, res);
    });
    express.listen(0, '127.0.0.1');
    await once(express, 'listening');
    try {
      const u = `http://127.0.0.1:${express.address().port}/mcp`;
      await exercise(u, MODES[0]);
      await exercise(u, MODES[1]);
    } finally {
      express.closeAllConnections();
      express.close();
    }
  });
});

describe('clean exit', () => {
  const script = (body) => `
    import { Server, Client } from ${JSON.stringify(pkgDir + '/lib/mcpcore.js')};
    import http from 'node:http';
    const server = new Server({ name: 'x', version: '1' });
    server.tool('echo', {}, ({ text }) => text);
    ${body}
    console.log('end of script');
  `;
  const cases = {
    'a registry with tools and nothing running': ``,
    'serveHttp, a call, shutdown': `
      const s = await server.serveHttp();
      const c = await Client.connectHttp(s.url);
      await c.callTool('echo', { text: 'x' });
      await c.close();
      await s.shutdown();`,
    'a stdio client with a call in flight, then closed': `
      const c = await Client.connectStdio(${JSON.stringify(rustBin('echo_server'))});
      const p = c.callTool('echo', { text: 'x' }).catch(() => {});
      await c.close();
      await p;`,
    'nodeHandler, then both closed': `
      const outer = http.createServer(server.nodeHandler()).listen(0, '127.0.0.1');
      await new Promise((r) => outer.once('listening', r));
      const c = await Client.connectHttp('http://127.0.0.1:' + outer.address().port + '/mcp');
      await c.callTool('echo', { text: 'x' });
      await c.close();
      outer.closeAllConnections();
      outer.close();
      await server.close();`,
  };
  test('serveStdio ends when stdin closes after a call (the call context does not hold the output open)', async () => {
    // The handler's ctx object outlives the call until a garbage collection; before the fix it
    // kept the connection's output open, so serveStdio never resolved and the process hung.
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'once' } } },
    ];
    const body = `await server.serveStdio(); console.error('serveStdio resolved');`;
    const input = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
    const out = await run(process.execPath, ['--input-type=module', '-e', script(body)], { input, timeoutMs: 10000 });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /"text":"once"/);
    assert.match(out.stderr, /serveStdio resolved/);
  });
  for (const [name, body] of Object.entries(cases)) {
    test(`the process exits by itself: ${name}`, async () => {
      const out = await run(process.execPath, ['--input-type=module', '-e', script(body)], { timeoutMs: 10000 });
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.stdout, 'end of script\n');
    });
  }
});

describe('server-side cancellation', () => {
  test('ctx.signal first read after the caller gave up is already aborted', async () => {
    const server = new Server({ name: 'late-signal', version: '1' });
    let resolveSeen;
    const seen = new Promise((r) => { resolveSeen = r; });
    // The handler looks at ctx.signal only after the call was abandoned: the lazily made
    // AbortController must still learn of it (the native side remembers the end of the call).
    server.tool('late', {}, (_a, ctx) => new Promise((resolve) => {
      setTimeout(() => {
        const signal = ctx.signal;
        setTimeout(() => { resolveSeen(signal.aborted); resolve('done'); }, 200);
      }, 800);
    }));
    const serving = await server.serveHttp({ port: 0 });
    try {
      const c = await Client.connectHttp(serving.url, { lineage: 'modern' });
      try {
        const ac = new AbortController();
        setTimeout(() => ac.abort(), 100);
        await assert.rejects(c.callTool('late', {}, { signal: ac.signal }), (e) => e.kind === 'cancelled');
        assert.equal(await seen, true, 'ctx.signal read late was aborted');
      } finally {
        await c.close();
      }
    } finally {
      await serving.shutdown();
    }
  });

  for (const mode of MODES) {
    test(`ctx.signal aborts when the caller aborts (${mode.version}${mode.transport ? ' sse' : ''})`, async () => {
      const server = new Server({ name: 'cancel', version: '1' });
      let resolveAborted;
      const aborted = new Promise((r) => { resolveAborted = r; });
      server.tool('wait', {}, (_a, ctx) => new Promise((resolve) => {
        const timer = setTimeout(() => resolve('finished anyway'), 3000);
        ctx.signal.addEventListener('abort', () => { clearTimeout(timer); resolveAborted(true); resolve('stopped'); });
      }));
      const serving = await server.serveHttp({ port: 0 });
      try {
        const url = mode.transport === 'sse' ? serving.url.replace(/\/mcp$/, '/sse') : serving.url;
        const c = await Client.connectHttp(url, { lineage: mode.lineage, protocolVersion: mode.version, transport: mode.transport ?? 'auto' });
        try {
          const ac = new AbortController();
          setTimeout(() => ac.abort(), 100);
          await assert.rejects(c.callTool('wait', {}, { signal: ac.signal }), (e) => e.kind === 'cancelled');
          const seen = await Promise.race([aborted, new Promise((r) => setTimeout(() => r(false), 2000))]);
          assert.equal(seen, true, 'the handler saw ctx.signal abort');
        } finally {
          await c.close();
        }
      } finally {
        await serving.shutdown();
      }
    });
  }
});

describe('logging', () => {
  function chatty() {
    const server = new Server({ name: 'chatty', version: '1' });
    server.tool('chatty', {}, (_a, ctx) => {
      ctx.log('debug', { step: 1 }, 'chatty');
      ctx.info('two');
      ctx.error(['three']);
      return 'done';
    });
    server.tool('bad', {}, (_a, ctx) => { ctx.log('loud', 'x'); return 'unreachable'; });
    return server;
  }

  test('legacy sessions filter with logging/setLevel', async () => {
    const serving = await chatty().serveHttp({ port: 0 });
    const c = await Client.connectHttp(serving.url, { lineage: 'legacy' });
    try {
      const seen = [];
      c.onLog((m) => seen.push([m.level, m.data, m.logger]));
      assert.equal(textOf(await c.callTool('chatty', {})), 'done');
      assert.deepEqual(seen, [['debug', { step: 1 }, 'chatty'], ['info', 'two', undefined], ['error', ['three'], undefined]]);
      seen.length = 0;
      assert.deepEqual(await c.request('logging/setLevel', { level: 'warning' }), {});
      await c.callTool('chatty', {});
      assert.deepEqual(seen.map((s) => s[0]), ['error']);
      const bad = await c.callTool('bad', {});
      assert.equal(bad.isError, true);
      assert.match(textOf(bad), /unknown log level/);
    } finally {
      await c.close();
      await serving.shutdown();
    }
  });

  test('log messages sent before a result reach onLog before the call resolves', async () => {
    // The thread's settle function is made by the first call, before onLog's function: the
    // order libuv runs them in must not let a result overtake its log messages.
    for (const lineage of ['modern', 'legacy']) {
      const serving = await chatty().serveHttp({ port: 0 });
      const c = await Client.connectHttp(serving.url, { lineage });
      try {
        await c.callTool('chatty', {});
        const seen = [];
        c.onLog((m) => seen.push(m.level));
        if (lineage === 'legacy') await c.setLogLevel('info');
        for (let i = 1; i <= 20; i++) {
          await c.callTool('chatty', {}, lineage === 'modern' ? { logLevel: 'info' } : {});
          assert.equal(seen.length, 2 * i, `${lineage}: call ${i} resolved before its log messages`);
        }
      } finally {
        await c.close();
        await serving.shutdown();
      }
    }
  });

  test('modern requests get logs only with logLevel', async () => {
    const serving = await chatty().serveHttp({ port: 0 });
    const c = await Client.connectHttp(serving.url, { lineage: 'modern' });
    try {
      const seen = [];
      c.onLog((m) => seen.push(m.level));
      await c.callTool('chatty', {});
      assert.deepEqual(seen, []);
      await c.callTool('chatty', {}, { logLevel: 'info' });
      assert.deepEqual(seen, ['info', 'error']);
    } finally {
      await c.close();
      await serving.shutdown();
    }
  });
});

describe('Client.serverCard', () => {
  test('reads the card of a served endpoint before connecting', async () => {
    const s = await makeServer().serveHttp();
    try {
      const card = await Client.serverCard(s.url);
      assert.equal(card.$schema, 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json');
      assert.match(card.name, /^127\.0\.0\.1\/served$/);
      assert.equal(card.version, '2.0');
      assert.equal(card.remotes[0].type, 'streamable-http');
      assert.equal(card.remotes[0].url, s.url);
    } finally {
      await s.shutdown();
    }
  });
});
