// A held-out peer of MCP Events (issue 48): the Vercel AI SDK's MCP client (@ai-sdk/mcp, its
// experimental_events) lists our Node server's event types and subscribes a webhook, served by
// the SDK's own createMCPEventWebhook (which checks our signatures); our emits reach its
// onEvent, and its refresh and unsubscribe work against our server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { experimental_createMCPClient as createMCPClient, experimental_createMCPEventWebhook as createMCPEventWebhook } from '@ai-sdk/mcp';
import { Server } from '../lib/mcpcore.js';

/** The SDK's store contract, in memory. */
function memoryStore() {
  const byKey = new Map();
  return {
    async get(key) { return byKey.get(key); },
    async getById(id) { return [...byKey.values()].find((s) => s.id === id); },
    async set(s) { byKey.set(s.key, { ...s }); },
    async update(key, patch) { byKey.set(key, { ...byKey.get(key), ...patch }); },
    async delete(key) { byKey.delete(key); },
  };
}

test('the AI SDK lists our event types and takes our webhook deliveries', async () => {
  const server = new Server({ name: 'ai-sdk-events', version: '1.0' });
  server.event('deploy', {
    description: 'A service was deployed.',
    payload: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
    delivery: ['poll', 'push', 'webhook'],
  });
  server.webhookPolicy({ allowHttpLoopback: true, allowAnonymous: true });
  const serving = await server.serveHttp({ port: 0 });
  const store = memoryStore();
  const events = [];
  const handle = createMCPEventWebhook({ store, onEvent: async ({ subscription, event }) => events.push({ subscription, event }) });
  const hook = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers, body: Buffer.concat(chunks) });
    const response = await handle(request);
    res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise((r) => hook.listen(0, '127.0.0.1', r));
  const client = await createMCPClient({ transport: { type: 'http', url: serving.url }, experimental_events: { store } });
  try {
    const listed = await client.experimental_events.list();
    assert.deepEqual(listed.events.map((e) => e.name), ['deploy']);
    assert.deepEqual(listed.events[0].delivery, ['poll', 'push', 'webhook']);
    const url = `http://127.0.0.1:${hook.address().port}/hook`;
    const sub = await client.experimental_events.subscribe({ name: 'deploy', delivery: { mode: 'webhook', url, allowInsecureLocalhost: true }, ttlMs: 60000 });
    assert.match(sub.id, /^sub_/);
    server.emit('deploy', { service: 'api' });
    for (let i = 0; i < 100 && events.length < 1; i++) await new Promise((ok) => setTimeout(ok, 50));
    assert.equal(events.length, 1, 'the SDK verified and took the delivery');
    assert.deepEqual(events[0].event.data, { service: 'api' });
    assert.equal(events[0].subscription.id, sub.id);
    const again = await client.experimental_events.refresh({ id: sub.id });
    assert.equal(again.id, sub.id, 'a refresh is the same subscription');
    await client.experimental_events.unsubscribe({ id: sub.id });
    server.emit('deploy', { service: 'web' });
    await new Promise((ok) => setTimeout(ok, 300));
    assert.equal(events.length, 1, 'nothing after unsubscribe');
  } finally {
    await client.close();
    await serving.shutdown();
    hook.close();
  }
});
