// Middleware in Node (issue 35): server.use(async (request, next) => ...) and the engine's
// ready-made middleware, over real HTTP on 127.0.0.1 with our client on both lineages. A
// middleware sees the method, params, revision, client and headers; changes a request; answers
// one itself; refuses one with its own code and data, which the client receives unchanged; sees
// the rest of the chain's errors as McpError with the wire's code; changes results on the way back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, McpError, Server, idempotency, listCache, rateLimit, requestLog, responseLimit, timeouts } from '../lib/mcpcore.js';

const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
const texts = (r) => r.content.map((c) => c.text);

test('a JS middleware sees, changes, refuses and answers requests on both lineages', async () => {
  const seen = [];
  const server = new Server({ name: 'mw', version: '1' });
  server.tool('echo', { inputSchema: text }, ({ text }) => text);
  server
    .use(async (request, next) => {
      const ctx = request.context;
      seen.push(`${request.method} ${ctx.protocolVersion} ${ctx.clientInfo?.name} ${ctx.header('x-tenant')}`);
      return next(request);
    })
    .use(async (request, next) => {
      if (request.tool === 'secret') {
        throw new McpError('Forbidden by policy', { code: -32042, data: { reason: 'module_off', remedy: 'ask an admin' } });
      }
      if (request.tool === 'answered') return { content: [{ type: 'text', text: 'from the middleware' }] };
      if (request.tool === 'missing') {
        try {
          await next(request);
        } catch (e) {
          return { content: [{ type: 'text', text: `caught ${e.code}` }] };
        }
      }
      if (request.tool === 'echo') request.params.arguments.text = `changed: ${request.params.arguments.text}`;
      const result = await next(request);
      if (request.method === 'tools/call') result.content.push({ type: 'text', text: '(seen)' });
      return result;
    });
  const serving = await server.serveHttp({ port: 0 });
  try {
    for (const protocolVersion of ['2026-07-28', '2025-11-25']) {
      seen.length = 0;
      const client = await Client.connectHttp(serving.url, { protocolVersion, headers: { 'x-tenant': 'acme' } });
      assert.deepEqual((await client.listTools()).map((t) => t.name), ['echo']);
      assert.deepEqual(texts(await client.callTool('echo', { text: 'hi' })), ['changed: hi', '(seen)']);
      assert.deepEqual(texts(await client.callTool('answered', {})), ['from the middleware']);
      await assert.rejects(client.callTool('secret', {}), (e) => {
        assert.equal(e.code, -32042);
        assert.deepEqual(e.data, { reason: 'module_off', remedy: 'ask an admin' });
        return true;
      });
      assert.deepEqual(texts(await client.callTool('missing', {})), ['caught -32602']);
      await client.close();
      assert.ok(seen.includes(`tools/list ${protocolVersion} mcpcore-node acme`), seen.join('\n'));
      assert.equal(seen.filter((l) => l.startsWith('tools/call ')).length, 4, seen.join('\n'));
      assert.ok(!seen.some((l) => l.startsWith('initialize')), 'lifecycle requests pass by');
    }
  } finally {
    await serving.shutdown();
  }
});

test('the ready-made middleware from Node', async () => {
  const server = new Server({ name: 'ready', version: '1' });
  server.tool('slow', {}, async (_args, ctx) => new Promise((resolve) => {
    const timer = setTimeout(() => resolve('woke'), 5000);
    // The timeout cancels the call: the handler hears it and stops its timer.
    ctx.signal.addEventListener('abort', () => clearTimeout(timer));
  }));
  server.tool('big', {}, () => 'x'.repeat(5000));
  server.tool('echo', { inputSchema: text }, ({ text }) => text);
  server
    .use(requestLog())
    .use(rateLimit({ perSecond: 0.01, burst: 6, methods: ['tools/call'] }))
    .use(timeouts({ defaultMs: 5000, perToolMs: { slow: 100 } }))
    .use(responseLimit({ maxBytes: 2048 }));
  const serving = await server.serveHttp({ port: 0 });
  try {
    for (const protocolVersion of ['2026-07-28', '2025-11-25']) {
      const client = await Client.connectHttp(serving.url, { protocolVersion });
      await assert.rejects(client.callTool('slow', {}), (e) => e.code === -32001 && e.data.tool === 'slow' && e.data.timeoutMs === 100);
      await assert.rejects(client.callTool('big', {}), (e) => e.data.limit === 'response_size' && e.data.max === 2048);
      await client.close();
    }
    // Four calls above, from one address: two more pass, the next is over the burst of 6.
    const client = await Client.connectHttp(serving.url, { protocolVersion: '2026-07-28' });
    for (let i = 0; i < 2; i++) assert.deepEqual(texts(await client.callTool('echo', { text: 'ok' })), ['ok']);
    await assert.rejects(client.callTool('echo', { text: 'over' }), (e) => {
      assert.equal(e.code, -32603);
      assert.equal(e.data.limit, 'rate');
      assert.ok(e.data.retryAfter >= 1);
      return true;
    });
    assert.equal((await client.listTools()).length, 3, 'lists are not counted');
    await client.close();
  } finally {
    await serving.shutdown();
  }
});

test('what is not a middleware is refused', () => {
  const server = new Server({ name: 's', version: '1' });
  assert.throws(() => server.use(42), /not a middleware/);
  assert.throws(() => server.use(rateLimit({ perSecond: 0, burst: 1 })), /perSecond/);
});

test('idempotent writes act once from Node', async () => {
  const server = new Server({ name: 'idem', version: '1' });
  const charged = [];
  server.tool('charge', {
    inputSchema: { type: 'object', properties: { idempotency_key: { type: 'string' }, amount: { type: 'number' } }, required: ['idempotency_key', 'amount'] },
  }, async ({ amount }) => {
    await new Promise((r) => setTimeout(r, 100));
    charged.push(amount);
    return `charge #${charged.length} of ${amount}`;
  });
  server.use(idempotency({ ttlMs: 60_000 }));
  const serving = await server.serveHttp({ port: 0 });
  try {
    for (const protocolVersion of ['2026-07-28', '2025-11-25']) {
      charged.length = 0;
      const client = await Client.connectHttp(serving.url, { protocolVersion });
      const args = { idempotency_key: `k-${protocolVersion}`, amount: 5 };
      const first = await Promise.all([1, 2, 3].map(() => client.callTool('charge', args)));
      assert.deepEqual(new Set(first.map(texts).flat()), new Set(['charge #1 of 5']));
      assert.deepEqual(charged, [5]);
      assert.deepEqual(texts(await client.callTool('charge', args)), ['charge #1 of 5']);
      await assert.rejects(client.callTool('charge', { ...args, amount: 6 }), (e) => e.code === -32602 && e.data.reason === 'idempotency_key_reused');
      await client.close();
    }
  } finally {
    await serving.shutdown();
  }
});

test('a rate limit store must be a redis URL', () => {
  assert.throws(() => new Server({ name: 's', version: '1' }).use(rateLimit({ perSecond: 1, burst: 1, store: 'memcached://x' })), /redis:\/\//);
});

test('the list cache answers repeats until the catalogue changes', async () => {
  // Legacy lineage: our client keeps no legacy lists itself, so every list reaches the server.
  const reached = [];
  const server = new Server({ name: 'cached', version: '1' });
  server.tool('echo', { inputSchema: text }, ({ text }) => text);
  server.use(listCache({ ttlMs: 60_000 })).use(async (request, next) => {
    reached.push(request.method);
    return next(request);
  });
  const serving = await server.serveHttp({ port: 0 });
  try {
    const client = await Client.connectHttp(serving.url, { protocolVersion: '2025-11-25' });
    try {
      for (let i = 0; i < 3; i++) assert.deepEqual((await client.listTools()).map((t) => t.name), ['echo']);
      assert.equal(reached.filter((m) => m === 'tools/list').length, 1, reached.join());
      server.tool('later', {}, () => 'later');
      assert.deepEqual((await client.listTools()).map((t) => t.name).sort(), ['echo', 'later']);
      assert.equal(reached.filter((m) => m === 'tools/list').length, 2, reached.join());
    } finally {
      await client.close();
    }
  } finally {
    await serving.shutdown();
  }
});
