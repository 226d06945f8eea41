// MCP Events (SEP-3415) served from Node: event types declared with `server.event`, occurrences
// emitted with `server.emit`; read by the mcpcore Node client over real HTTP (`events/list`,
// `events/poll` from a cursor), a raw `events/stream` over fetch (SSE), and the example
// `echo_server.mjs --events` as a child process on stdio, on both lineages. Bad declarations and
// emits throw (kind `invalid_input`) and record nothing; error codes reach `McpError.code`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, Server } from '../lib/mcpcore.js';
import { examples } from './helpers.mjs';

function makeServer() {
  const server = new Server({ name: 'events', version: '1.0' });
  server.event('deploy', {
    description: 'A service was deployed.',
    payload: { type: 'object', properties: { service: { type: 'string' }, version: { type: 'integer' } }, required: ['service', 'version'] },
    retain: 3,
  });
  server.event('pushed', { description: 'Push only', delivery: ['push'] });
  server.eventHeartbeat(50);
  return server;
}

const datas = (r) => r.events.map((e) => e.data);

test('declared types are listed, polled from a cursor, and errors keep their codes', async () => {
  const server = makeServer();
  const serving = await server.serveHttp({ port: 0 });
  const c = await Client.connectHttp(serving.url);
  try {
    assert.deepEqual(c.serverCapabilities.extensions['io.modelcontextprotocol/events'], { listChanged: true });
    assert.deepEqual(c.serverCapabilities.events, {});
    const listed = (await c.request('events/list')).events;
    assert.deepEqual(listed.map((e) => e.name), ['deploy', 'pushed']);
    assert.deepEqual(listed[0].delivery, ['poll', 'push']);
    const first = await c.request('events/poll', { name: 'deploy', arguments: {}, cursor: null });
    assert.deepEqual(first.events, []);
    const emitted = server.emit('deploy', { service: 'api', version: 7 });
    assert.match(emitted.eventId, /^evt_/);
    const second = await c.request('events/poll', { name: 'deploy', arguments: {}, cursor: first.cursor });
    assert.deepEqual(datas(second), [{ service: 'api', version: 7 }]);
    assert.equal(second.events[0].eventId, emitted.eventId);
    for (let v = 8; v <= 12; v++) server.emit('deploy', { service: 'api', version: v });
    const late = await c.request('events/poll', { name: 'deploy', arguments: {}, cursor: second.cursor });
    assert.deepEqual(datas(late).map((d) => d.version), [10, 11, 12]);
    assert.equal(late.truncated, true);
    await assert.rejects(c.request('events/poll', { name: 'nope', arguments: {} }), (e) => e.code === -32011 && e.data.kind === 'event');
    await assert.rejects(c.request('events/poll', { name: 'pushed', arguments: {} }), (e) => e.code === -32014);
    await assert.rejects(c.request('events/poll', { name: 'deploy', arguments: {}, cursor: 'forged' }), (e) => e.code === -32602);
    assert.throws(() => server.emit('deploy', { service: 'api' }), (e) => e.kind === 'invalid_input' && /payloadSchema/.test(e.message));
    assert.throws(() => server.emit('nope', {}), (e) => e.kind === 'invalid_input');
    assert.throws(() => server.emit('pushed', { blob: 'x'.repeat(300_000) }), /at most 262144 bytes/);
    const again = await c.request('events/poll', { name: 'deploy', arguments: {}, cursor: late.cursor });
    assert.deepEqual(again.events, [], 'the refused emits recorded nothing');
  } finally {
    await c.close();
    await serving.shutdown();
  }
});

test('declarations are checked', () => {
  const server = new Server({ name: 'bad', version: '1.0' });
  assert.throws(() => server.event('a', { delivery: ['fax'] }), (e) => e.kind === 'invalid_input' && /fax/.test(e.message));
  assert.throws(() => server.event('a', { retain: 0 }), /retain/);
  assert.equal(server.removeEvent('a'), false);
});

test('an emit reaches an open stream over HTTP', async () => {
  const server = makeServer();
  const serving = await server.serveHttp({ port: 0 });
  const abort = new AbortController();
  try {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const resp = await fetch(serving.url, {
      method: 'POST',
      signal: abort.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'events/stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'events/stream', params: { name: 'deploy', arguments: {}, _meta: meta } }),
    });
    assert.equal(resp.status, 200);
    assert.match(resp.headers.get('content-type'), /^text\/event-stream/);
    const reader = resp.body.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    const notes = [];
    const next = async () => {
      for (;;) {
        const i = buffered.indexOf('\n\n');
        if (i >= 0) {
          const block = buffered.slice(0, i);
          buffered = buffered.slice(i + 2);
          const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('');
          if (data) return JSON.parse(data);
          continue;
        }
        const { value, done } = await reader.read();
        assert.ok(!done, 'the stream ended');
        buffered += decoder.decode(value, { stream: true });
      }
    };
    const active = await next();
    assert.equal(active.method, 'notifications/events/active');
    assert.deepEqual(active.params._meta, { 'io.modelcontextprotocol/subscriptionId': 5 });
    server.emit('deploy', { service: 'web', version: 1 });
    let note;
    do note = await next(); while (note.method !== 'notifications/events/event');
    assert.deepEqual(note.params.data, { service: 'web', version: 1 });
    const beat = await next();
    assert.equal(beat.method, 'notifications/events/heartbeat');
    assert.equal(beat.params.cursor, note.params.cursor);
    notes.push(active, note, beat);
  } finally {
    abort.abort();
    await serving.shutdown();
  }
});

for (const protocolVersion of ['2026-07-28', '2025-11-25']) {
  test(`the example server emits echoed and tick (${protocolVersion})`, async () => {
    const c = await Client.connectStdio(process.execPath, [path.join(examples, 'echo_server.mjs'), '--events'], { protocolVersion });
    try {
      assert.equal(c.protocolVersion, protocolVersion);
      const start = await c.request('events/poll', { name: 'echoed', arguments: {} });
      await c.callTool('echo', { text: 'hi' });
      const got = await c.request('events/poll', { name: 'echoed', arguments: {}, cursor: start.cursor });
      assert.deepEqual(datas(got), [{ text: 'hi' }]);
      assert.equal(got.nextPollMs, 1000);
      const ticks = await c.request('events/poll', { name: 'tick', arguments: {} });
      let later;
      for (let i = 0; i < 30; i++) {
        await new Promise((r) => setTimeout(r, 100));
        later = await c.request('events/poll', { name: 'tick', arguments: {}, cursor: ticks.cursor });
        if (later.events.length) break;
      }
      assert.ok(later.events.length > 0, 'a tick within 3 s');
      assert.ok(datas(later).every((d) => Number.isInteger(d.n)));
      await assert.rejects(c.request('events/poll', { name: 'tick', arguments: { x: 1 } }), (e) => e.code === -32602);
    } finally {
      await c.close();
    }
  });
}

// A webhook endpoint on 127.0.0.1 checking every delivery with the Standard Webhooks reference
// library (npm `standardwebhooks`) and answering the verification challenge.
async function receiver(secret) {
  const { Webhook } = await import('standardwebhooks');
  const http = await import('node:http');
  const hook = new Webhook(secret);
  const got = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const payload = hook.verify(body, req.headers); // throws on a bad signature or an old timestamp
      got.push({ payload, headers: req.headers });
      const answer = payload.type === 'verification' ? JSON.stringify({ challenge: payload.challenge }) : '';
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { got, url: `http://127.0.0.1:${server.address().port}/hook`, close: () => server.close() };
}

const SECRET = 'whsec_' + Buffer.alloc(32, 7).toString('base64');

for (const protocolVersion of ['2026-07-28', '2025-11-25']) {
  test(`the example delivers echoed to a webhook the reference library verifies (${protocolVersion})`, async () => {
    const r = await receiver(SECRET);
    const args = [path.join(examples, 'echo_server.mjs'), '--events', '--events-allow-http-loopback'];
    // The receiver closes even when the child cannot start: an open listener would keep this
    // file running after its tests failed.
    let c;
    try {
      c = await Client.connectStdio(process.execPath, args, { protocolVersion });
      const sub = await c.request('events/subscribe', { name: 'echoed', arguments: {}, delivery: { mode: 'webhook', url: r.url, secret: SECRET } });
      assert.match(sub.id, /^sub_/);
      assert.equal(r.got[0].payload.type, 'verification');
      await c.callTool('echo', { text: 'to the hook' });
      for (let i = 0; i < 100 && r.got.length < 2; i++) await new Promise((ok) => setTimeout(ok, 50));
      const { payload, headers } = r.got[1];
      assert.deepEqual([payload.name, payload.data], ['echoed', { text: 'to the hook' }]);
      assert.equal(headers['webhook-id'], payload.eventId);
      assert.equal(headers['x-mcp-subscription-id'], sub.id);
      await c.request('events/unsubscribe', { name: 'echoed', arguments: {}, delivery: { url: r.url } });
      await c.callTool('echo', { text: 'nobody' });
      await new Promise((ok) => setTimeout(ok, 300));
      assert.equal(r.got.length, 2, 'nothing after unsubscribe');
      await assert.rejects(c.request('events/subscribe', { name: 'tick', arguments: {}, delivery: { url: r.url, secret: SECRET } }), (e) => e.code === -32014);
    } finally {
      await c?.close();
      r.close();
    }
  });
}

test('webhooks need a principal by default', async () => {
  const server = new Server({ name: 'strict', version: '1.0' });
  server.event('deploy', { delivery: ['webhook'] });
  const serving = await server.serveHttp({ port: 0 });
  const c = await Client.connectHttp(serving.url);
  try {
    const params = { name: 'deploy', arguments: {}, delivery: { url: 'https://example.com/h', secret: SECRET } };
    await assert.rejects(c.request('events/subscribe', params), (e) => e.code === -32012);
  } finally {
    await c.close();
    await serving.shutdown();
  }
});

test('the Node client lists, polls and streams with resume, on both lineages', async () => {
  const server = makeServer();
  const serving = await server.serveHttp({ port: 0 });
  try {
    for (const lineage of ['modern', 'legacy']) {
      const c = await Client.connectHttp(serving.url, { lineage });
      try {
        assert.deepEqual(c.eventsSupport(), { listChanged: true });
        assert.deepEqual((await c.listEvents()).map((t) => t.name), ['deploy', 'pushed']);
        const first = await c.pollEvents('deploy');
        assert.deepEqual(first.events, []);
        server.emit('deploy', { service: 'a', version: 1 });
        const got = await c.pollEvents('deploy', { cursor: first.cursor, maxEvents: 10 });
        assert.deepEqual(datas(got), [{ service: 'a', version: 1 }]);
        const stream = await c.streamEvents('deploy', { cursor: got.cursor });
        assert.deepEqual(await stream.next(), { type: 'active', cursor: got.cursor, truncated: false });
        server.emit('deploy', { service: 'a', version: 2 });
        for await (const item of stream) {
          if (item.type !== 'event') continue;
          assert.deepEqual(item.data, { service: 'a', version: 2 });
          assert.equal(stream.cursor, item.cursor);
          break;
        }
        const resume = stream.cursor;
        await stream.close();
        server.emit('deploy', { service: 'a', version: 3 });
        const again = await c.streamEvents('deploy', { cursor: resume });
        assert.equal((await again.next()).type, 'active');
        assert.equal((await again.next()).data.version, 3);
        await again.close();
        await assert.rejects(c.streamEvents('nope'), (e) => e.code === -32011);
        const poller = c.poller('deploy', { cursor: resume });
        assert.deepEqual(datas((await poller.next()).value).map((d) => d.version), [3]);
        const start = Date.now();
        server.emit('deploy', { service: 'a', version: 4 });
        const later = (await poller.next()).value;
        assert.ok(Date.now() - start >= 990, 'the one-second floor');
        assert.deepEqual(datas(later).map((d) => d.version), [4]);
        await poller.return();
      } finally {
        await c.close();
      }
    }
  } finally {
    await serving.shutdown();
  }
});

test('the Node client subscribes a webhook the reference library verifies', async () => {
  const r = await receiver(SECRET);
  const server = new Server({ name: 'hooks', version: '1.0' });
  server.event('deploy', { delivery: ['webhook'] });
  server.webhookPolicy({ allowHttpLoopback: true, allowAnonymous: true });
  const serving = await server.serveHttp({ port: 0 });
  const c = await Client.connectHttp(serving.url);
  try {
    const granted = await c.subscribeWebhook('deploy', r.url, SECRET, { ttlMs: 60000 });
    assert.match(granted.id, /^sub_/);
    assert.ok(granted.refreshBefore);
    server.emit('deploy', { ok: true });
    for (let i = 0; i < 100 && r.got.length < 2; i++) await new Promise((ok) => setTimeout(ok, 50));
    assert.deepEqual(r.got[1].payload.data, { ok: true });
    await c.unsubscribeWebhook('deploy', r.url);
    await assert.rejects(c.unsubscribeWebhook('deploy', r.url), (e) => e.code === -32011);
  } finally {
    await c.close();
    await serving.shutdown();
    r.close();
  }
});

test('a WebhookReceiver mounted in node:http takes our server\'s deliveries once and refuses a forgery', async () => {
  const { WebhookReceiver } = await import('../lib/mcpcore.js');
  const http = await import('node:http');
  const receiver = new WebhookReceiver(SECRET);
  const taken = [];
  const hook = http.createServer(receiver.nodeHandler(async (delivery, subscriptionId) => taken.push({ delivery, subscriptionId })));
  await new Promise((r) => hook.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${hook.address().port}/hooks`;
  const server = new Server({ name: 'hooks', version: '1.0' });
  server.event('deploy', { delivery: ['webhook'] });
  server.webhookPolicy({ allowHttpLoopback: true, allowAnonymous: true });
  const serving = await server.serveHttp({ port: 0 });
  const c = await Client.connectHttp(serving.url);
  try {
    const granted = await c.subscribeWebhook('deploy', url, SECRET);
    server.emit('deploy', { v: 1 });
    for (let i = 0; i < 100 && taken.length < 1; i++) await new Promise((ok) => setTimeout(ok, 50));
    assert.equal(taken.length, 1);
    assert.deepEqual([taken[0].delivery.type, taken[0].delivery.data, taken[0].subscriptionId], ['event', { v: 1 }, granted.id]);
    const forged = receiver.receive({ 'webhook-id': 'x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,AAAA' }, '{}');
    assert.deepEqual([forged.status, forged.delivery], [401, null]);
    assert.throws(() => new WebhookReceiver('nope'), (e) => e.kind === 'invalid_input');
  } finally {
    await c.close();
    await serving.shutdown();
    hook.close();
  }
});

test('filterOn gives each subscription the occurrences its arguments ask for', async () => {
  const server = new Server({ name: 'events', version: '1.0' });
  server.event('deploy', { arguments: { type: 'object', properties: { service: { type: 'string' } } }, filterOn: ['service'] });
  const serving = await server.serveHttp({ port: 0 });
  const c = await Client.connectHttp(serving.url);
  try {
    const start = (await c.request('events/poll', { name: 'deploy', arguments: {}, cursor: null })).cursor;
    for (const [service, version] of [['api', 1], ['web', 2], ['api', 3]]) server.emit('deploy', { service, version });
    const poll = (args) => c.request('events/poll', { name: 'deploy', arguments: args, cursor: start });
    assert.deepEqual(datas(await poll({ service: 'api' })).map((d) => d.version), [1, 3]);
    assert.deepEqual(datas(await poll({ service: 'web' })).map((d) => d.version), [2]);
    assert.deepEqual(datas(await poll({})).map((d) => d.version), [1, 2, 3]);
  } finally {
    await c.close();
    await serving.shutdown();
  }
});
