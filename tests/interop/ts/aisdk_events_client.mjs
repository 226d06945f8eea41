// The Vercel AI SDK's MCP client (`@ai-sdk/mcp`, `experimental_events`) against our server's
// MCP Events (issue 48): it lists the event types, subscribes a webhook to `echoed` whose
// callback is the SDK's own `experimental_createMCPEventWebhook` handler (it answers the
// verification challenge, checks every Standard Webhooks signature, the subscription id and
// the eventId), and reports each occurrence it accepted. Driven by tests/rust/interop_aisdk_events.rs.
//
//   node aisdk_events_client.mjs --url URL [--legacy]
//
// Reports (one JSON line each): {"listed": [...], "subscription": {...}} once subscribed, then
// {"event": {...}} per accepted occurrence; after a line on stdin it unsubscribes and reports
// {"unsubscribed": true, "refused": N} (N: deliveries the handler refused, 4xx/5xx).
import http from 'node:http';
import readline from 'node:readline';
import { experimental_createMCPClient, experimental_createMCPEventWebhook } from '@ai-sdk/mcp';

const args = process.argv.slice(2);
const url = args[args.indexOf('--url') + 1];
const legacy = args.includes('--legacy');
const report = (v) => process.stdout.write(JSON.stringify(v) + '\n');
// Bounded: a run that hears nothing it waits for says so and fails, instead of hanging its driver.
setTimeout(() => {
  report({ timeout: true, refused });
  process.exit(1);
}, 30_000).unref();

// The subscription store the SDK asks for: in memory, keyed by its callback key and by id.
const byKey = new Map();
const store = {
  async get(key) { return byKey.get(key); },
  async getById(id) { return [...byKey.values()].find((s) => s.id === id); },
  async set(s) { byKey.set(s.key, structuredClone(s)); },
  async update(key, patch) { const s = byKey.get(key); if (s) byKey.set(key, { ...s, ...patch }); },
  async delete(key) { byKey.delete(key); },
};

let refused = 0;
const handler = experimental_createMCPEventWebhook({
  store,
  onEvent: async ({ subscription, event }) => report({ event, subscription: subscription.id }),
  onError: (e) => process.stderr.write(`webhook handler error: ${e}\n`),
});

// node:http in front of the SDK's Fetch-API handler.
const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const request = new Request(`http://127.0.0.1${req.url}`, {
    method: req.method,
    headers: req.headers,
    body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
  });
  const response = await handler(request);
  if (response.status >= 400) refused++;
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const callback = `http://127.0.0.1:${server.address().port}/hook`;

const client = await experimental_createMCPClient({
  transport: { type: 'http', url },
  experimental_events: { store },
  ...(legacy ? { protocolVersionDiscovery: false } : {}),
});
const listed = await client.experimental_events.list();
const subscription = await client.experimental_events.subscribe({
  name: 'echoed',
  delivery: { mode: 'webhook', url: callback, allowInsecureLocalhost: true },
  ttlMs: 60_000,
});
report({ listed: listed.events.map((e) => e.name), subscription });

const stdin = readline.createInterface({ input: process.stdin });
await new Promise((ok) => stdin.once('line', ok));
await client.experimental_events.unsubscribe({ id: subscription.id });
report({ unsubscribed: true, refused });
stdin.close();
await client.close();
server.close();
