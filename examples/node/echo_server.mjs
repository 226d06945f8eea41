#!/usr/bin/env node
// The example contract's echo server in Node: tools `echo` and `add`.
//
//   node echo_server.mjs                        # stdio, both lineages
//   node echo_server.mjs --http 127.0.0.1:PORT  # HTTP on /mcp (prints "listening on URL")
//   node echo_server.mjs --http 127.0.0.1:PORT --auth-jwks URL --auth-issuer ISS --auth-audience AUD
//   node echo_server.mjs --http 127.0.0.1:PORT --store redis://HOST:PORT[/DB] [--allowed-host NAME[:PORT]]...
//   node echo_server.mjs --http 127.0.0.1:PORT --limit max_sessions_per_client=100 --limit max_in_flight=50
//   node echo_server.mjs --apps                 # also show_echo, whose view is the app ui://echo/view.html
//   node echo_server.mjs --tool-search --synthetic-tools 1000  # 1,000 more tools, found by search_tools
//   node echo_server.mjs --rate-limit 5         # each client: 5 requests a second (ready-made middleware)
//   node echo_server.mjs --idempotency          # append(text, idempotency_key), once per key
//   node echo_server.mjs --events [--events-heartbeat-ms N] [--events-allow-http-loopback]  # MCP Events
//
// `--events` (the Events extension, SEP-3415) declares `echoed`, one occurrence `{text}` per
// `echo` call, delivered by poll, push and signed webhooks, and `tick`, one `{n}` a second, the
// last 60 kept for replay, by poll and push. `--events-allow-http-loopback` (development only)
// accepts `http` webhook callbacks on loopback addresses and subscribers without a token.
//
// Behind a load balancer with several instances (no sticky routing): `--store redis://…` keeps
// legacy sessions in Redis, so any instance serves any message of any session; it needs the
// `requestState` keys in MCPCORE_STATE_KEY (hex, at least 32 bytes, newest first, the same on
// every instance) and refuses to start without them. `--allowed-host NAME[:PORT]` (repeatable)
// accepts the public host the proxy forwards as Host/Origin, besides the loopback names.
//
// With the `--auth-*` options (HTTP only) it is an OAuth resource server: every request needs a
// bearer JWT signed with a key of the JWKS at URL, issued by ISS for AUD (the PRM names ISS as
// the authorization server). `echo` needs no scope; `add` needs `mcp:add` and is hidden from
// `tools/list` for tokens without it.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Server, idempotency, rateLimit } from 'mcpcore';

const fail = (why) => {
  console.error(`echo_server: ${why}`);
  process.exit(2);
};
let values;
try {
  ({ values } = parseArgs({
    options: {
      http: { type: 'string' },
      'auth-jwks': { type: 'string' },
      'auth-issuer': { type: 'string' },
      'auth-audience': { type: 'string' },
      store: { type: 'string' },
      'allowed-host': { type: 'string', multiple: true },
      limit: { type: 'string', multiple: true },
      apps: { type: 'boolean' },
      'tool-search': { type: 'boolean' },
      'synthetic-tools': { type: 'string' },
      'rate-limit': { type: 'string' },
      idempotency: { type: 'boolean' },
      events: { type: 'boolean' },
      'events-heartbeat-ms': { type: 'string' },
      'events-allow-http-loopback': { type: 'boolean' },
    },
  }));
} catch (e) {
  fail(e.message);
}

const server = new Server({ name: 'mcpcore-echo-node', version: '0.1.0' });

server.tool(
  'echo',
  {
    description: 'Returns the text unchanged.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  ({ text }) => {
    if (values.events) server.emit('echoed', { text });
    return text;
  }
);

if (values.events) {
  const noArguments = { type: 'object', properties: {}, additionalProperties: false };
  server.event('echoed', {
    description: 'Each text the echo tool returned.',
    arguments: noArguments,
    payload: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    delivery: ['poll', 'push', 'webhook'],
    pollIntervalMs: 1000,
  });
  if (values['events-allow-http-loopback']) server.webhookPolicy({ allowHttpLoopback: true, allowAnonymous: true });
  server.event('tick', {
    description: 'One a second, counting up from 1; replayable for the last 60.',
    arguments: noArguments,
    payload: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    retain: 60,
    pollIntervalMs: 1000,
  });
  if (values['events-heartbeat-ms'] !== undefined) server.eventHeartbeat(Number(values['events-heartbeat-ms']));
  let n = 0;
  // unref: the ticker alone does not keep the process up (stdio or HTTP serving does).
  setInterval(() => server.emit('tick', { n: ++n }), 1000).unref();
}

server.tool(
  'add',
  {
    description: 'Adds two numbers.',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  },
  async ({ a, b }) => ({ sum: a + b })
);

if (values.apps) {
  // MCP Apps: show_echo, bound to the app ui://echo/view.html (examples/echo_view.html, the view
  // every example server serves). Hosts without apps get the text itself.
  const view = readFileSync(new URL('../echo_view.html', import.meta.url), 'utf8');
  server.app(
    'ui://echo/view.html',
    view,
    'show_echo',
    {
      description: 'Shows the text in the echo view; hosts without apps get the text itself.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    ({ text }) => ({ content: [{ type: 'text', text }], structuredContent: { text } }),
    { prefersBorder: true }
  );
}

// --synthetic-tools N: the same generated tools as the Rust and Python echo servers (every verb on
// every kind of record, one at a time or in bulk), each answering "<name> done".
const VERBS = ['create', 'list', 'get', 'update', 'delete', 'search', 'archive', 'export', 'import', 'approve',
  'reject', 'send', 'schedule', 'cancel', 'assign', 'merge', 'tag', 'comment_on', 'duplicate', 'restore'];
const NOUNS = ['invoice', 'customer', 'order', 'payment', 'refund', 'ticket', 'user', 'report', 'project', 'task',
  'document', 'contract', 'shipment', 'product', 'supplier', 'employee', 'meeting', 'campaign',
  'subscription', 'quote', 'expense', 'lead', 'asset', 'budget', 'calendar_event'];
const synthetic = Number(values['synthetic-tools'] ?? 0);
if (!Number.isInteger(synthetic) || synthetic < 0) fail('--synthetic-tools needs a number');
let made = 0;
outer: for (const scope of ['one', 'many']) {
  for (const noun of NOUNS) {
    for (const verb of VERBS) {
      if (made === synthetic) break outer;
      const name = `${verb}_${noun}_${scope === 'one' ? 'by_id' : 'in_bulk'}`;
      const what = noun.replaceAll('_', ' ');
      const words = verb.replaceAll('_', ' ');
      const doing = words[0].toUpperCase() + words.slice(1);
      const description = scope === 'one'
        ? `${doing} one ${what} given its id.`
        : `${doing} many ${what}s at once, from a filter or a list of ids.`;
      const inputSchema = {
        type: 'object',
        properties: { id: { type: 'string', description: `The ${what}'s id.` }, note: { type: 'string', description: 'Why (kept in the audit log).' } },
      };
      server.tool(name, { description, inputSchema }, () => `${name} done`);
      made += 1;
    }
  }
}
if (values['tool-search']) server.toolSearch(['echo', 'add']);
if (values.idempotency) {
  // append(text, idempotency_key): acts once per key (in Redis with --store, for every instance).
  const log = [];
  server.tool('append', {
    description: 'Appends a line to the log, once per idempotency key; answers the lines in the log.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' }, idempotency_key: { type: 'string' } }, required: ['text', 'idempotency_key'] },
    outputSchema: { type: 'object', properties: { length: { type: 'integer' } }, required: ['length'] },
  }, async ({ text }) => {
    await new Promise((r) => setTimeout(r, 200));
    log.push(text);
    return { length: log.length };
  });
  server.use(idempotency({ store: values.store }));
}
if (values['rate-limit'] !== undefined) {
  const n = Number(values['rate-limit']);
  if (!(n > 0)) fail('--rate-limit needs a positive number of requests a second');
  server.use(rateLimit({ perSecond: n, burst: Math.max(1, Math.ceil(n)) }));
}

const given = [values['auth-jwks'], values['auth-issuer'], values['auth-audience']];
let auth;
if (given.some(Boolean)) {
  if (!given.every(Boolean)) fail('--auth-jwks URL, --auth-issuer ISS and --auth-audience AUD go together');
  const [jwksUrl, issuer, audience] = given;
  auth = { jwksUrl, issuer, audience, toolScopes: { add: ['mcp:add'] } };
}

const publicHosts = values['allowed-host'] ?? [];
if (values.http === undefined && (values.store !== undefined || publicHosts.length > 0 || values.limit)) {
  fail('--store, --allowed-host and --limit need --http');
}
// --limit NAME=VALUE: one of serveHttp's limits in the core's snake_case (max_in_flight=50).
const LIMITS = ['max_body', 'header_timeout_ms', 'body_timeout_ms', 'max_connections', 'shutdown_grace_ms',
  'max_sessions', 'max_sessions_per_client', 'session_idle_ms', 'max_backlog', 'max_in_flight',
  'max_tasks_per_client', 'peer_request_timeout_ms'];
const limits = {};
for (const pair of values.limit ?? []) {
  const [name, value] = pair.split('=');
  if (!/^-?\d+$/.test(value ?? '')) fail(`--limit needs NAME=INTEGER, not ${JSON.stringify(pair)}`);
  if (!LIMITS.includes(name)) fail(`unknown --limit ${JSON.stringify(name)}; one of ${LIMITS.join(', ')}`);
  limits[name.replace(/_([a-z])/g, (_, c) => c.toUpperCase())] = Number(value);
}

if (values.http === undefined) {
  // On stdio the token comes from the environment (MCP_ACCESS_TOKEN), checked once.
  try {
    await server.serveStdio({ auth });
  } catch (e) {
    console.error(`echo_server: ${e.message}`);
    process.exit(1);
  }
} else {
  const [host, port] = splitHostPort(values.http);
  let serving;
  try {
    serving = await server.serveHttp({ host, port, auth, store: values.store, ...hostOptions(publicHosts, port), ...limits });
  } catch (e) {
    fail(e.message);
  }
  console.log(`listening on ${serving.url}`);
  const stop = () => serving.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await serving.wait();
}

// The allow-lists for --allowed-host: the given names plus the loopback names with this port
// (as the Rust echo_server does), each as a Host and as http/https origins.
function hostOptions(hosts, port) {
  if (hosts.length === 0) return {};
  const loopback = ['127.0.0.1', 'localhost', '[::1]'];
  const withPort = loopback.map((n) => `${n}:${port}`);
  const origins = [...withPort, ...hosts].flatMap((n) => [`http://${n}`, `https://${n}`]);
  return { allowedHosts: [...withPort, ...loopback, ...hosts], allowedOrigins: origins };
}

function splitHostPort(s) {
  const i = s.lastIndexOf(':');
  return [s.slice(0, i).replace(/^\[|\]$/g, ''), Number(s.slice(i + 1))];
}
