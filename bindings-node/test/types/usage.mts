// Type-checked (never run) usage of the public API: `tsc -p test/types` must pass.
import { Server, Client, Registry, McpError, RequestTimeout, InputRequired, ErrorCode, type CallToolResult, type Tool } from 'mcpcore';
import { OAuth, MemoryTokenStore, AuthError, type TokenStore, type StoredTokens, type StoredClient, type HttpOptions } from 'mcpcore';
import { z } from 'zod';
import http from 'node:http';

const server = new Server({ name: 'typed', version: '1.0.0' });

server.tool(
  'add',
  {
    description: 'Adds.',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: z.object({ sum: z.number() }),
  },
  async ({ a, b }) => ({ sum: a + b }) // a and b are numbers (inferred from zod)
);

server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }, ctx) => {
  if (ctx.wantsProgress) ctx.reportProgress(1, 1, 'done');
  const version: string | null = ctx.protocolVersion;
  return `${String(text)} ${version}`;
});

server.tool('raw', () => ({ content: [{ type: 'text', text: 'x' }], isError: true }));

server.resource('memo://today', { mimeType: 'text/plain' }, () => 'Buy milk');
server.resource('img://logo', () => new Uint8Array([1, 2, 3]));
server.resource(
  'users://{id}/profile',
  { name: 'profile', mimeType: 'application/json', complete: { id: (value) => ['1', '2'].filter((v) => v.startsWith(value)) } },
  async ({ id }, ctx) => ({ id, asked: ctx.requestId })
);
server.prompt(
  'review',
  { description: 'Reviews code.', arguments: [{ name: 'code', required: true }], complete: { code: ['x', 'y'] } },
  ({ code }) => [`Review ${code}`, { role: 'assistant', content: 'Sure.' }]
);
server.tool('greet', async (_args, ctx) => {
  const r = await ctx.elicit<{ name: string }>('name', 'Your name?', { type: 'object', properties: { name: { type: 'string' } } });
  const m = await ctx.sample('poem', 'A haiku, please', { maxTokens: 50 });
  const roots = await ctx.listRoots('roots');
  if (ctx.requestState === undefined) ctx.setRequestState({ step: 1 });
  const elicits: boolean = ctx.clientCapabilities?.elicitation !== undefined;
  return `${r.action === 'accept' ? r.content?.name : '?'} ${m.model} ${roots.length} ${elicits}`;
});
server.notifyResourceUpdated('memo://today');
const removed: boolean = server.removeResource('users://{id}/profile') && server.removePrompt('review');

async function main(): Promise<void> {
  const serving = await server.serveHttp({ port: 0, responseMode: 'auto' });
  const url: string = serving.url;
  http.createServer(server.nodeHandler({ path: '/mcp' })).listen(3000);
  const fetchHandler: (request: Request) => Promise<Response> = server.fetchHandler({ maxBody: 1024, allowedHosts: ["mcp.example.com"] });
  void fetchHandler;

  const client = await Client.connectHttp(url, { bearerToken: 't', headers: { 'x-a': 'b' }, lineage: 'modern' });
  const tools: Tool[] = await client.listTools();
  const ac = new AbortController();
  try {
    const r: CallToolResult = await client.callTool('add', { a: 1, b: 2 }, { timeoutMs: 1000, signal: ac.signal });
    console.log(r.structuredContent, tools.length, client.protocolVersion, client.lineage === 'legacy');
  } catch (e) {
    if (e instanceof RequestTimeout) console.log('timeout', e.code === ErrorCode.REQUEST_TIMEOUT);
    else if (e instanceof McpError) console.log(e.code, e.data, e.kind);
  }
  await client.close();

  const stdio = await Client.connectStdio(['node', 'server.mjs'], [], { timeoutMs: 5000 });
  const registry = new Registry();
  const done = await registry.connect('s', stdio, { collision: 'prefix' });
  for (const d of done) if (d.status === 'renamed') console.log(d.requested, d.name);
  await registry.disconnect('s');
  await serving.shutdown();
  await server.close();
}
void main;

// @ts-expect-error: collision policies are checked
void new Registry().connect('x', {} as Client, { collision: 'merge' });

server.tool('inferred', { inputSchema: z.object({ n: z.number() }) }, ({ n }) => {
  // @ts-expect-error: n is a number, inferred from the zod schema
  const s: string = n;
  return s;
});

const needsInput: McpError = new InputRequired('x');
void removed;
void needsInput;

// OAuth: a Promise hook and an async store, typed.
const store: TokenStore = {
  async loadTokens(server: string) { return server ? null : undefined; },
  async saveTokens(_server: string, t: StoredTokens | null) { void t?.access_token; },
  loadClient: (_issuer: string) => null,
  saveClient: (_issuer: string, _c: StoredClient | null) => undefined,
};
const auth = new OAuth({ onAuthorize: async (url: string) => url, redirectUri: 'http://127.0.0.1:1/cb', clientId: 'x', store });
async function withAuth(): Promise<void> {
  const opts: HttpOptions = { auth, timeoutMs: 1000 };
  const c = await Client.connectHttp('http://127.0.0.1:1/mcp', opts);
  const t = await auth.tokens('http://127.0.0.1:1/mcp');
  if (t) console.log(t.issuer, t.expires_at);
  try {
    await c.close();
  } catch (e) {
    if (e instanceof AuthError) console.log(e.error, e.errorDescription, e.httpStatus);
  }
}
void withAuth;
void new OAuth({ grant: 'client_credentials', clientId: 'svc', clientSecret: 's', storePath: '/tmp/x.json' });
// @ts-expect-error: grants are checked
void new OAuth({ grant: 'password' });
void new MemoryTokenStore();

// Protected servers: serveHttp({ auth }) and ctx.auth.
import { TokenRefused, type Auth, type Identity } from 'mcpcore';
server.tool('whoami', {}, (_args, ctx) => {
  const who: Identity | undefined = ctx.auth;
  return { subject: who?.subject ?? null, scopes: who?.scopes ?? [], team: who?.claims['team'] ?? null };
});
const jwtAuth: Auth = { jwksUrl: 'http://as/jwks', issuer: 'http://as', audience: 'http://127.0.0.1:8000/mcp', toolScopes: { add: ['mcp:add'] } };
const hostAuth: Auth = {
  resource: 'http://127.0.0.1:8000/mcp',
  authorizationServers: ['https://as.example'],
  scopeMode: 'stepUp',
  verify: async (token) => {
    if (token === 'ok') return { subject: 'u', scopes: ['mcp:add'], claims: {} };
    throw new TokenRefused('no', { kind: 'invalid_token' });
  },
};
void server.serveHttp({ port: 8000, auth: jwtAuth });
void server.serveHttp({ store: 'redis://127.0.0.1:6379/0', stateKeys: 'ab'.repeat(32), allowedHosts: ['mcp.example'] });
void server.serveHttp({ stateKeys: ['ab'.repeat(32), 'cd'.repeat(32)] });
void hostAuth;
// @ts-expect-error: scope modes are checked
void ({ scopeMode: 'loose' } satisfies Auth);

// The client: handlers for the server's input requests, typed lists, tasks, notifications.
import { Task, type TaskStatus, type ResourceContents, type GetPromptResult, type SubscriptionFilter } from 'mcpcore';
async function client() {
  const c = await Client.connectStdio('node server.mjs --flag', {
    probeTimeoutMs: 2000,
    onElicitation: (params) => (params.mode === 'url' ? 'accept' : { name: 'Ann' }),
    onSampling: async (params) => `a reply to ${params.messages.length} messages`,
    roots: ['file:///work', { uri: 'file:///tmp', name: 'tmp' }],
  });
  const caps: { [k: string]: unknown } = c.serverCapabilities;
  for await (const t of c.tools()) void t.name;
  const contents: ResourceContents[] = await c.readResource('memo://today');
  const prompt: GetPromptResult = await c.getPrompt('review', { code: 'x' });
  const values: string[] = await c.complete({ prompt: 'review' }, 'code', 'x');
  const task: Task = await c.callTool('research', { topic: 'x' }, { task: true, ttlMs: 60_000 });
  const st: TaskStatus = await task.status();
  const done: CallToolResult = await task.result();
  c.onToolsChanged(() => undefined);
  c.onResourceUpdated((uri: string) => void uri);
  await c.subscribe('memo://today');
  const acked: SubscriptionFilter | null = await c.notificationsReady();
  void acked?.resourceSubscriptions?.length;
  c.setRoots(['file:///other']);
  await c.setLogLevel('error');
  await c.ping();
  // @ts-expect-error: log levels are checked
  await c.setLogLevel('loud');
  void [caps, contents, prompt, values, st, done];
  await c.close();
  const version: string = c.protocolVersion;
  void version;
}
void client;
const withLifespan = new Server({
  name: 'l',
  lifespan: async function* () {
    yield { db: 'connected' };
  },
});
withLifespan.tool('status', (_args, ctx) => String(ctx.lifespan.db));

// A gateway: upstreams from an mcpServers config, a local tool beside them.
import { Gateway, type GatewayConfig, type UpstreamStatus } from 'mcpcore';
const gwConfig: GatewayConfig = {
  mcpServers: {
    everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], start: 'lazy' },
    remote: { url: 'http://127.0.0.1:8081/mcp', type: 'http', prefix: '', headers: { 'X-Key': 'k' }, alwaysAllow: ['x'] },
  },
  collision: 'skip',
};
const gateway = new Gateway(gwConfig, { name: 'gw' });
gateway.tool('local_time', {}, () => 'noon');
void (async () => {
  await gateway.start();
  const up: string[] = gateway.upstreams;
  const st: UpstreamStatus | undefined = gateway.status(up[0]);
  void st?.state;
  const serving = await gateway.serveHttp({ port: 8080 });
  await serving.shutdown();
  await gateway.close();
})();
// @ts-expect-error: the start option is checked
void ({ mcpServers: { x: { command: 'y', start: 'never' } } } satisfies GatewayConfig);
// Skills (SEP-2640): entries are typed on both sides.
import { type Skill } from 'mcpcore';
const skillServer = new Server({ name: 'skills' });
const made: Skill = skillServer.addSkill('git-workflow', { 'SKILL.md': '---\nname: git-workflow\ndescription: d\n---\n', 'logo.png': new Uint8Array([1]) });
void made.frontmatter.name;
void (async (c: Client) => {
  const entries: Skill[] = await c.listSkills();
  const text: string = await c.loadSkill(entries[0]);
  const bytes: Buffer = await c.readSkillFile(entries[0], entries[0].uri);
  const manifest = entries[0].resources === 'dynamic' ? [] : entries[0].resources.map((r) => r.digest);
  void [text, bytes, manifest, c.skillsSupport()?.directoryRead];
});
// Events (SEP-3415): a declaration and an emit, typed.
import { type EventOccurrence, type EventSpec } from 'mcpcore';
const eventSpec: EventSpec = { description: 'd', payload: { type: 'object' }, delivery: ['poll', 'push'], retain: 10 };
skillServer.event('deploy', eventSpec);
const occurred: EventOccurrence<{ service: string }> = skillServer.emit('deploy', { service: 'api' });
void [occurred.eventId, occurred.data.service];
// @ts-expect-error: delivery modes are checked
void ({ delivery: ['fax'] } satisfies EventSpec);
import { type EventStream, type StreamItem } from 'mcpcore';
void (async (c: Client) => {
  const stream: EventStream = await c.streamEvents('deploy', { cursor: null });
  for await (const item of stream) {
    const i: StreamItem = item;
    if (i.type === 'event') void [i.eventId, i.data];
  }
  const polled = await c.pollEvents('deploy', { maxEvents: 5 });
  void [polled.cursor, polled.hasMore, stream.cursor, (await c.subscribeWebhook('deploy', 'https://x.example/h', 'whsec_x')).refreshBefore];
});
// MCP Apps: an app and a tool bound to it, typed.
import { appsMeta, type AppView } from 'mcpcore';
const appServer = new Server({ name: 'apps' });
appServer.addApp('ui://x/view.html', '<p>', { prefersBorder: true, csp: { connectDomains: ['https://a.example'] } });
appServer.app('ui://y/view.html', '<p>', 'show', { description: 'Shows' }, () => 'shown', { visibility: ['app'] });
appServer.tool('bound', { _meta: appsMeta('ui://x/view.html', ['model']) }, () => 'x');
void (async (c: Client) => {
  const view: AppView = await c.readApp('ui://x/view.html');
  void [view.html, view.meta.csp?.connectDomains, c.offersApps()];
});
// Tool search: typed.
new Server({ name: 'big' }).toolSearch(['echo', 'add']);
// Refusals: typed.
import { refusal } from 'mcpcore';
const refused: CallToolResult = refusal('module_off', 'turn the module on', undefined, { module: 'billing' });
void refused.isError;
// Middleware: typed request, next and ready-made ones.
import { McpError as MwError, rateLimit, requestLog, responseLimit, timeouts, type MiddlewareRequest } from 'mcpcore';
const mw = new Server({ name: 'mw' });
mw.use(async (request: MiddlewareRequest, next) => {
  const tenant: string | undefined = request.context.header('x-tenant');
  if (request.tool === 'secret' && tenant === undefined) throw new MwError('no tenant', { code: -32042 });
  const result = await next(request);
  return { ...result, seenBy: request.context.clientInfo?.name };
})
  .use(rateLimit({ perSecond: 5, burst: 10, methods: ['tools/call'] }))
  .use(timeouts({ defaultMs: 30_000, perToolMs: { slow: 1000 } }))
  .use(responseLimit({ maxBytes: 1 << 20 }))
  .use(requestLog());
