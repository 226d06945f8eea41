'use strict';
// mcpcore: the Model Context Protocol for Node, on one Rust engine.
//
// Both protocol lineages (stateless 2026-07-28 and the `initialize`-based 2025-11-25 ...
// 2024-11-05), stdio and HTTP, one registry for local and remote tools. This file only converts
// values and errors; the protocol lives in the `mcpcore` crate (see ../src and ../../core).

const native = require('./native');
const errors = require('./errors');
const { toJsonSchema, envelopeCallback } = require('./tools');
const { createNodeHandler, createFetchHandler } = require('./node-handler');
const features = require('./features');
const middlewares = require('./middleware');
const { OAuth, MemoryTokenStore } = require('./auth');
const { TokenRefused, serverAuth } = require('./server-auth');
const { Client, Task, EventStream } = require('./client');
const stdio = require('./stdio');

const { native: awaitNative, nativeSync, InvalidInput, makeError } = errors;

const parse = (text) => (text == null ? text : JSON.parse(text));
const json = (value) => JSON.stringify(value ?? {});

/** Tools by name: JS functions and the tools of connected servers, called alike. */
class Registry {
  constructor() {
    /** @internal */
    this._native = new native.Registry();
  }

  /**
   * Registers a tool. `spec` is `{description, inputSchema, outputSchema, title, refs}` (schemas
   * are JSON Schema objects or Standard Schemas: zod 3 and 4, valibot, arktype; `$ref`s to
   * non-recursive definitions are inlined unless `refs: true`); `handler(args, ctx)` may return a
   * value or a Promise. Returns the tool definition. Throws InvalidInput for a bad or taken name.
   */
  tool(name, spec, handler) {
    if (typeof name === 'function') throw makeError('invalid_input', 'tool: the name comes first: tool(name, spec?, handler)', { code: -32602 });
    if (typeof spec === 'function') [spec, handler] = [{}, spec];
    spec = spec ?? {};
    if (typeof handler !== 'function') throw makeError('invalid_input', `tool ${name}: the handler must be a function`, { code: -32602 });
    const inputSchema = toJsonSchema(spec.inputSchema, 'input', 'inputSchema', spec.refs);
    const outputSchema = toJsonSchema(spec.outputSchema, 'output', 'outputSchema', spec.refs);
    const description = spec.description ?? '';
    nativeSync(() =>
      this._native.addTool(
        name,
        description,
        JSON.stringify(inputSchema),
        envelopeCallback(handler, spec.inputSchema, this),
        outputSchema === undefined ? null : JSON.stringify(outputSchema),
        spec.title ?? null,
        spec._meta === undefined ? null : JSON.stringify(spec._meta)
      )
    );
    const tool = { name, description, inputSchema };
    if (outputSchema !== undefined) tool.outputSchema = outputSchema;
    if (spec.title !== undefined) tool.title = spec.title;
    if (spec._meta !== undefined) tool._meta = spec._meta;
    return tool;
  }

  /** Same as `tool()`. */
  addTool(name, spec, handler) {
    return this.tool(name, spec, handler);
  }

  /** Removes a tool; false when there was none. */
  removeTool(name) {
    return this._native.removeTool(name);
  }

  /** The tool names, sorted. */
  get names() {
    return this._native.names();
  }

  /** Every tool definition, sorted by name. */
  listTools() {
    return JSON.parse(this._native.listTools());
  }

  /** Calls a tool in-process, local or remote (arguments are validated against its schema). */
  async callTool(name, args = {}, options = {}) {
    return parse(await awaitNative(this._native.callTool(name, json(args), options.timeoutMs ?? null)));
  }

  /** Registers every tool of `client` under `serverId`; `collision` is 'error' (default),
   * 'skip' or 'prefix' (rename to `<serverId>_<name>`). Resolves to what happened to each. */
  async connect(serverId, client, options = {}) {
    const collision = options.collision ?? 'error';
    return parse(await awaitNative(this._native.connect(serverId, client._native, collision)));
  }

  /** Unregisters a server's tools and closes its connection; resolves to the removed names. */
  async disconnect(serverId) {
    return awaitNative(this._native.disconnect(serverId));
  }

  /**
   * Connects every server of an `mcpServers` config and registers their tools here, beside the
   * local ones: a path to the JSON file (Claude Desktop, VS Code's `servers`, Cursor) or the
   * parsed object. `${env:VAR}` (and `${VAR}`, with `:-default`) come from the environment.
   * A server's tools are named `<name>__<tool>` unless its entry sets `prefix` (`""` for none).
   * Resolves to the names of the servers connected; on failure none stays connected.
   */
  async loadConfig(config) {
    const text = typeof config === 'string' ? require('node:fs').readFileSync(config, 'utf8') : JSON.stringify(config);
    return awaitNative(this._native.loadConfig(text));
  }

  /** The ids of connected servers. */
  get servers() {
    return this._native.servers();
  }
}

/** A running HTTP server (from `Server.serveHttp`). */
class HttpServing {
  constructor(n, onStop) {
    /** @internal */
    this._native = n;
    /** @internal ends the server's lifespan */
    this._onStop = onStop;
  }
  /** The endpoint URL, e.g. `http://127.0.0.1:8000/mcp`. */
  get url() {
    return this._native.url;
  }
  /** The bound port. */
  get port() {
    return this._native.port;
  }
  /** Stops gracefully: in-flight requests finish within the grace period (30 s by default);
   * then the server's lifespan ends. */
  async shutdown() {
    await awaitNative(this._native.shutdown());
    const onStop = this._onStop;
    this._onStop = undefined;
    if (onStop) await onStop();
  }
  /** Resolves when the server has stopped. While pending, it keeps the process alive. */
  wait() {
    return awaitNative(this._native.wait());
  }
  async [Symbol.asyncDispose]() {
    await this.shutdown();
  }
}

/** An MCP server: both lineages, on stdio or HTTP, serving a Registry. */
/**
 * A tool result that refuses and says why and what would help: `isError`, `message` as text for
 * the model (default `Refused (<reason>): <remedy>`) and `structuredContent` `{reason, remedy,
 * ...details}` for the host. `reason` is a stable code (`scope_not_granted`, `profile`,
 * `module_off`, `record_read_only`...). Return it from a tool handler.
 */
function refusal(reason, remedy, message, details = {}) {
  const text = message ?? `Refused (${reason}): ${remedy}`;
  return JSON.parse(nativeSync(() => native.refusalResult(reason, remedy, text, JSON.stringify(details))));
}

/** One page of `items` for a tool that lists records (see index.d.ts). */
function page(items, { limit, cursor, defaultLimit = 20, cap = 200 } = {}) {
  const json = nativeSync(() => native.pageOf(JSON.stringify([...items]), limit ?? null, cursor ?? null, defaultLimit, cap));
  return JSON.parse(json);
}

/** A tool result saying the action waits for someone's approval (see index.d.ts). */
function pendingApproval(message, details = {}) {
  return JSON.parse(nativeSync(() => native.pendingApprovalResult(message, JSON.stringify(details))));
}

/** A tool's `_meta` binding it to the app at `resourceUri` (MCP Apps `_meta.ui`;
 * `visibility`: who may call it, 'model' and/or 'app', both by default). */
function appsMeta(resourceUri, visibility) {
  const ui = { resourceUri };
  if (visibility !== undefined) ui.visibility = [...visibility];
  return { ui };
}

class Server {
  /**
   * Options: name, version, instructions, registry, telemetry (OpenTelemetry: SERVER spans and
   * `mcp.server.operation.duration` with `@opentelemetry/api`'s global providers; default: on
   * when a tracer provider is registered as serving starts), and lifespan: an async generator function
   * `async function* (server) { ...; yield state; ... }` run when serving starts (up to its
   * `yield`) and finished when it stops; `state` is `ctx.lifespan` in every handler.
   */
  constructor(options = {}) {
    const { name = 'mcpcore-node', version = native.nativeVersion(), instructions, registry, lifespan, telemetry } = options;
    if (lifespan !== undefined && typeof lifespan !== 'function') {
      throw makeError('invalid_input', 'lifespan must be an async generator function', { code: -32602 });
    }
    /** The registry served (shared when passed in). */
    this.registry = registry ?? new Registry();
    /** @internal */
    this._lifespan = lifespan;
    /** @internal */
    this._native = new native.Server(this.registry._native, name, version, instructions ?? null);
    /** @internal */
    this._handlers = [];
    /** @internal OpenTelemetry: true, false, or undefined (on when a tracer provider is registered). */
    this._telemetry = telemetry;
  }

  /** @internal Adds the telemetry middleware (outermost) once, when wanted, as serving starts. */
  _ensureTelemetry() {
    if (this._telemetryOn || !require('./telemetry').wanted(this._telemetry)) return;
    if (!this._mw) this._mw = new native.Middleware();
    middlewares.addTelemetry(this._mw, this.registry);
    this._native.withMiddleware(this._mw);
    this._telemetryOn = true;
  }

  /** Registers a tool (see `Registry.tool`). */
  tool(name, spec, handler) {
    return this.registry.tool(name, spec, handler);
  }

  /**
   * Registers a resource. `uri` is a fixed URI or an RFC 6570 template (`users://{id}/profile`);
   * `spec` is `{name, title, description, mimeType, complete}` (`complete`, templates only:
   * `{variable: ['values'] | (value, context) => values}`). `handler(variables, ctx, uri)`
   * returns (or resolves to) a string (text), a Buffer/Uint8Array (a blob), ResourceContents
   * objects, or any other JSON value (sent as `application/json` text); a throw becomes -32603
   * (an McpError with a code is sent as that error). Register before serving. Returns the
   * Resource or ResourceTemplate.
   */
  resource(uri, spec, handler) {
    const d = nativeSync(() => features.addResource(this._resources(), uri, spec, handler, this.registry));
    if (d.uriTemplate !== undefined) this._templateNames.set(d.uriTemplate, d.name);
    return d;
  }

  /** Removes a resource by URI, or a template by its URI template or name; false when none. */
  removeResource(uri) {
    if (!this._res) return false;
    if (this._res.remove(uri)) return true;
    const name = this._templateNames.get(uri) ?? uri;
    this._templateNames.delete(uri);
    return this._res.removeTemplate(name);
  }

  /** Announces that the resource at `uri` changed (to the clients subscribed to it). */
  notifyResourceUpdated(uri) {
    this._res?.notifyUpdated(uri);
  }

  /**
   * Registers a prompt. `spec` is `{title, description, arguments: [{name, description,
   * required}], complete}` (`complete`: `{argument: ['values'] | (value, context) => values}`).
   * `handler(args, ctx)` returns a string (one user message), messages (`{role, content}`,
   * content a string or content object), or a GetPromptResult. Register before serving.
   * Returns the Prompt.
   */
  prompt(name, spec, handler) {
    return nativeSync(() => features.addPrompt(this._prompts(), name, spec, handler, this.registry));
  }

  /** Removes a prompt; false when there was none. */
  removePrompt(name) {
    return this._pro?.remove(name) ?? false;
  }

  /**
   * Serves an app (MCP Apps, `io.modelcontextprotocol/ui`): the HTML document `html` at the
   * `ui://` URI `uri`, as `text/html;profile=mcp-app`. `options`: `name`, `title`,
   * `description`, `csp` (`{connectDomains, resourceDomains, frameDomains, baseUriDomains}`: the
   * origins it may reach, none by default), `permissions` (`['camera', 'microphone',
   * 'geolocation', 'clipboardWrite']`), `domain`, `prefersBorder`. The server then declares the
   * extension. Bind tools with `app()` or `tool(name, { _meta: appsMeta(uri) }, ...)`.
   */
  addApp(uri, html, options = {}) {
    const { name, title, description, csp, permissions, domain, prefersBorder } = options;
    const ui = {};
    if (csp) ui.csp = csp;
    if (permissions?.length) ui.permissions = Object.fromEntries(permissions.map((p) => [p, {}]));
    if (domain !== undefined) ui.domain = domain;
    if (prefersBorder !== undefined) ui.prefersBorder = prefersBorder;
    nativeSync(() =>
      this._resources().addApp(uri, html, name ?? null, title ?? null, description ?? null, Object.keys(ui).length ? JSON.stringify(ui) : null)
    );
  }

  /**
   * Serves the app `html` at `uri` (`addApp`'s `options`, plus `visibility`: `['model', 'app']`
   * by default, `['app']` for a tool only the app calls) and registers the tool `name` bound to
   * it (`_meta.ui.resourceUri`). Hosts without apps call it as any tool, so its result should
   * say in text what the app shows. Returns the Tool.
   */
  app(uri, html, name, spec, handler, options = {}) {
    if (typeof spec === 'function') [spec, handler, options] = [{}, spec, handler ?? {}];
    const { visibility, ...appOptions } = options;
    this.addApp(uri, html, appOptions);
    const meta = { ...(spec?._meta ?? {}), ...appsMeta(uri, visibility) };
    return this.registry.tool(name, { ...spec, _meta: meta }, handler);
  }

  /**
   * Serves every skill under the directory `root` (each directory holding a `SKILL.md`; the
   * Skills extension, `io.modelcontextprotocol/skills`): its files become resources
   * `skill://<skill-path>/<file>`, and `skills/list`, `skills/get` and
   * `resources/directory/read` are answered. Files are read once, now. Returns the entries.
   * Throws (kind `invalid_input`) naming the rule a skill breaks (frontmatter without
   * name/description or naming another directory, more than 512 files or 16 MiB, a link
   * leaving `root`); then none of them is served.
   */
  skills(root) {
    return JSON.parse(nativeSync(() => this._skills().addDir(String(root))));
  }

  /**
   * Serves the skill at `path` (`'git-workflow'`, `'acme/billing/refunds'`; the last segment is
   * its name) made of `files` (`{'SKILL.md': text, 'refs/x.md': text | Buffer}`). Returns its
   * entry (frontmatter, each file's sha256 digest and size).
   */
  addSkill(path, files) {
    const names = Object.keys(files);
    const contents = names.map((n) => (typeof files[n] === 'string' ? Buffer.from(files[n]) : Buffer.from(files[n])));
    return JSON.parse(nativeSync(() => this._skills().add(path, names, contents)));
  }

  /**
   * Adds `middleware` around every dispatched request, inside those added before:
   * `async (request, next) => result` (`request`: `{method, params, context, tool}`;
   * `next(request)` resolves to the result of the rest of the chain, or rejects with its
   * `McpError`), or a ready-made one (`rateLimit`, `timeouts`, `responseLimit`,
   * `requestLog`). Use before serving. Returns the server.
   */
  use(middleware) {
    if (!this._mw) this._mw = new native.Middleware();
    nativeSync(() => middlewares.addTo(this._mw, middleware, this.registry));
    this._native.withMiddleware(this._mw);
    return this;
  }

  /**
   * Tool search for a large catalogue: `tools/list` shows only the `pinned` tools and
   * `search_tools`, which ranks every tool for a query (BM25 over names, descriptions and
   * argument names; `regex: true` for a regular expression) and answers the best matches with
   * their schemas. Every tool stays callable by name. Call it once, before serving.
   */
  toolSearch(pinned = []) {
    if (this._search) throw makeError('invalid_input', 'tool search is already on', { code: -32602 });
    this._search = nativeSync(() => this.registry._native.toolSearch([...pinned]));
    this._native.withToolSearch(this._search);
  }

  /**
   * Declares the event type `name` (the Events extension, SEP-3415): clients list it
   * (`events/list`), poll it (`events/poll`) and stream it (`events/stream`). `spec`:
   * `description`, `payload` (the JSON Schema of an occurrence's data; default any object),
   * `arguments` (the schema of a subscription's arguments), `delivery` (default
   * `['poll', 'push']`), `retain` (occurrences kept for replay, default 256),
   * `pollIntervalMs` (the `nextPollMs` polls suggest, default 5000), `filterOn` (subscription
   * arguments that filter occurrences: a subscription giving one receives only occurrences
   * whose data has the same value there, by poll, stream and webhook alike). Throws (kind
   * `invalid_input`) for a schema that does not compile or an unknown delivery mode.
   */
  event(name, spec = {}) {
    const { description, payload, arguments: args, delivery, retain, pollIntervalMs, filterOn, _meta } = spec;
    const decl = { name, description, payloadSchema: payload, inputSchema: args, delivery, retain, pollIntervalMs, filterOn, _meta };
    nativeSync(() => this._events().declare(JSON.stringify(decl)));
  }

  /**
   * Records an occurrence of the event type `name` with `data` and delivers it to every open
   * stream, at once; returns it (`eventId`, `timestamp`, `data`…). Throws (kind
   * `invalid_input`) for an undeclared type, data failing its payload schema, or an occurrence
   * over 256 KiB; nothing is recorded then.
   */
  emit(name, data) {
    return JSON.parse(nativeSync(() => this._events().emit(name, JSON.stringify(data))));
  }

  /** Streams opened from now on hear a heartbeat every `ms` while quiet (default 15000). */
  eventHeartbeat(ms) {
    this._events().setHeartbeat(Math.max(0, Math.round(ms)));
  }

  /**
   * How webhook subscriptions (`events/subscribe`, for types declared with `'webhook'` in
   * `delivery`) are accepted. By default a callback must be `https` to a public address and the
   * subscriber authenticated. Development only: `allowHttpLoopback` accepts `http` callbacks on
   * loopback addresses, `allowAnonymous` subscribers without a token (they share one
   * principal). Existing subscriptions are dropped.
   */
  webhookPolicy({ allowHttpLoopback = false, allowAnonymous = false } = {}) {
    this._events().setWebhookPolicy(Boolean(allowHttpLoopback), Boolean(allowAnonymous));
  }

  /** Stops offering the event type `name`; false when it was not declared. */
  removeEvent(name) {
    return this._ev?.remove(name) ?? false;
  }

  /** @internal The native Events, created (and served) on first use. */
  _events() {
    if (!this._ev) {
      this._ev = new native.Events();
      this._native.withEvents(this._ev);
    }
    return this._ev;
  }

  /** Stops serving the skill whose SKILL.md is at `uri`; false when there was none. */
  removeSkill(uri) {
    return this._sk?.remove(uri) ?? false;
  }

  /** @internal The native Skills (over the Resources), created (and served) on first use. */
  _skills() {
    if (!this._sk) {
      this._sk = new native.Skills(this._resources());
      this._native.withSkills(this._sk);
    }
    return this._sk;
  }

  /** @internal The native Resources, created (and served) on first use. */
  _resources() {
    if (!this._res) {
      this._res = new native.Resources();
      this._native.withResources(this._res);
      /** @internal URI template → name, for removeResource. */
      this._templateNames = new Map();
    }
    return this._res;
  }

  /** @internal The native Prompts, created (and served) on first use. */
  _prompts() {
    if (!this._pro) {
      this._pro = new native.Prompts();
      this._native.withPrompts(this._pro);
    }
    return this._pro;
  }

  /** @internal Starts the lifespan; resolves to what ends it (undefined without one). */
  async _enterLifespan() {
    if (this._lifespan === undefined) return undefined;
    const run = this._lifespan(this);
    if (run == null || typeof run.next !== 'function') {
      throw makeError('invalid_input', 'lifespan must be an async generator function (async function* ... yield state)', { code: -32602 });
    }
    const first = await run.next();
    this.registry._lifespanState = first.value;
    return async () => {
      try {
        await run.return(undefined);
      } finally {
        this.registry._lifespanState = undefined;
      }
    };
  }

  /**
   * Serves on this process's stdin/stdout until stdin closes (inside the lifespan). Write logs
   * to stderr. With `{ auth }` (the settings of `serveHttp`'s auth) the caller's access token is
   * read from the environment variable MCP_ACCESS_TOKEN, as the spec asks of stdio servers, and
   * checked once before serving: every request is served as that identity (`ctx.auth`), with
   * its catalogue; without a valid token it rejects with an AuthError.
   */
  async serveStdio(options = {}) {
    this._ensureTelemetry();
    const { auth } = options ?? {};
    const target = auth === undefined ? this._native : this._native.withAuth(serverAuth(auth));
    const leave = await this._enterLifespan();
    try {
      await stdio.serveStdio(target);
    } finally {
      if (leave) await leave();
      // Log records the engine emitted last (setLogger, DEBUG=mcpcore) are queued to this
      // thread: they are delivered before serving counts as done (and the process can exit).
      await flushLogs();
    }
  }

  /**
   * Starts serving HTTP: both lineages on `path` (default `/mcp`), 2024-11-05 SSE on `/sse`.
   * Options: host (an IP, default 127.0.0.1), port (0 = a free one), path, responseMode ('auto',
   * 'json', 'sse'), maxBody, allowedHosts, allowedOrigins, anyHost, shutdownGraceMs,
   * headerTimeoutMs, bodyTimeoutMs, maxConnections, maxSessions, maxSessionsPerClient,
   * sessionIdleMs, maxBacklog, maxInFlight, maxTasksPerClient, peerRequestTimeoutMs (the limits:
   * see mcpcore.d.ts), tlsCertFile, tlsKeyFile, tlsClientCaFile,
   * store ('redis://HOST:PORT[/DB]': sessions shared by several instances), stateKeys (default:
   * MCPCORE_STATE_KEY), and auth (a protected server: see `Auth` in mcpcore.d.ts and
   * lib/server-auth.js).
   */
  async serveHttp(options = {}) {
    this._ensureTelemetry();
    const { auth, ...rest } = options ?? {};
    if (typeof rest.stateKeys === 'string') rest.stateKeys = [rest.stateKeys];
    const target = auth === undefined ? this._native : this._native.withAuth(serverAuth(auth));
    const leave = await this._enterLifespan();
    try {
      return new HttpServing(await awaitNative(target.serveHttp(rest)), leave);
    } catch (e) {
      if (leave) await leave();
      throw e;
    }
  }

  /** @internal The native server, protected by `auth` when given. */
  _nativeFor(auth) {
    this._ensureTelemetry();
    return auth === undefined ? this._native : this._native.withAuth(serverAuth(auth));
  }

  /**
   * An `(req, res)` handler for `http.createServer`, Express and Fastify, feeding the engine
   * in process (no listener, no loopback hop; see lib/node-handler.js). Options as `serveHttp`
   * (path, responseMode, maxBody, allowedHosts, allowedOrigins, anyHost, store, stateKeys, auth).
   */
  nodeHandler(options = {}) {
    const h = createNodeHandler(this, options);
    this._handlers.push(h);
    return h.handler;
  }

  /**
   * A fetch-style `(Request) => Promise<Response>` handler (Hono, Bun, Deno, any web-standard
   * server), feeding the engine in process. Options as `nodeHandler`.
   */
  fetchHandler(options = {}) {
    const h = createFetchHandler(this, options);
    this._handlers.push(h);
    return h.handler;
  }

  /** Ends the open streams and sessions of the handlers made by `nodeHandler()` and `fetchHandler()`. */
  async close() {
    const handlers = this._handlers.splice(0);
    await Promise.all(handlers.map((h) => h.close()));
  }
}

/**
 * Delivers the engine's own log records to `handler({ level, target, message })`: the HTTP
 * server logs each request at `debug` (target `mcpcore::http`: JSON-RPC method and id, status,
 * time). `options.level` is the lowest level delivered (`error`, `warn`, `info`, `debug`,
 * `trace`; default `debug`). `setLogger(null)` stops. `DEBUG=mcpcore` (or `mcpcore:*`, as the
 * `debug` package spells namespaces) in the environment prints them to stderr.
 */
function setLogger(handler, options = {}) {
  const level = options.level ?? 'debug';
  if (handler == null) {
    for (const done of flushes.splice(0)) done();
    return nativeSync(() => native.setLogHandler(null, level));
  }
  if (typeof handler !== 'function') throw makeError('invalid_input', 'setLogger needs a function or null', { code: -32602 });
  return nativeSync(() =>
    native.setLogHandler((lvl, target, message) => {
      if (target === FLUSH_TARGET) flushes.shift()?.();
      else handler({ level: lvl, target, message });
    }, level),
  );
}

const FLUSH_TARGET = 'mcpcore::flush';
/** Resolvers of flushLogs() calls, in the order their markers were queued. */
const flushes = [];

/** Resolves once every log record the engine queued so far has reached the logger. */
function flushLogs() {
  return new Promise((resolve) => {
    flushes.push(resolve);
    if (!nativeSync(() => native.flushLogHandler())) flushes.pop()();
  });
}

/**
 * A gateway: every server of an `mcpServers` config (the Claude Desktop / Cursor / VS Code shape
 * plus the gateway's per-entry options: prefix, uriPrefix, protocolVersion or lineage,
 * include/exclude, timeoutMs, start, restart; see `mcpcore gateway --help`) connected as an
 * upstream and served as one Server, on both lineages, beside the tools, resources and prompts
 * registered on it. `config` is an object or JSON text; `options` as for Server.
 */
class Gateway extends Server {
  constructor(config, options = {}) {
    const { name = 'mcpcore-gateway', version = native.nativeVersion(), instructions = null } = options;
    super({ ...options, name, version });
    /** @internal */
    this._config = typeof config === 'string' ? config : JSON.stringify(config);
    /** @internal */
    this._info = [name, version, instructions ?? null];
    /** @internal */
    this._gw = null;
  }

  /** Connects the upstreams (eager ones before it resolves) and mounts their entries beside
   * the local ones. Rejects (every upstream closed again) when one cannot be reached or a
   * name collides under the "error" policy. Resolves to this gateway. */
  async start() {
    if (this._gw) return this;
    const gw = await awaitNative(native.Gateway.start(this._config, this.registry._native, this._resources(), this._prompts()));
    this._gw = gw;
    this._native = gw.server(...this._info);
    return this;
  }

  /** @internal */
  _started() {
    if (!this._gw) throw makeError('invalid_input', 'the gateway is not started: await gateway.start() first', { code: -32602 });
    return this._gw;
  }

  /** The mounted upstreams, sorted (a lazy one once it connected). */
  get upstreams() {
    return this._started().upstreams();
  }

  /** The state of the configured upstream `name`: {state: 'starting' | 'up' | 'restarting' |
   * 'failed', restarts, lastError}, or undefined. */
  status(name) {
    const s = this._started().status(name);
    return s == null ? undefined : { state: s.state, restarts: s.restarts, lastError: s.lastError ?? undefined };
  }

  /** Serves on stdio (see Server.serveStdio); starts the gateway first. */
  async serveStdio() {
    await this.start();
    return super.serveStdio();
  }

  /** Serves on HTTP (see Server.serveHttp); starts the gateway first. */
  async serveHttp(options = {}) {
    await this.start();
    return super.serveHttp(options);
  }

  /** Closes every upstream (stdio children are stopped) and the listeners of nodeHandler();
   * the local entries stay. */
  async close() {
    await super.close();
    if (this._gw) await awaitNative(this._gw.shutdown());
  }

  async [Symbol.asyncDispose]() {
    await this.close();
  }
}

let nextCallId = 1;

if (/(^|[\s,])mcpcore(:\*|:http)?($|[\s,])/.test(process.env.DEBUG ?? '')) {
  setLogger(({ target, message }) => process.stderr.write(`${target.replace(/::/g, ':')} ${message}\n`));
}

// One `exports.X =` per name so that `import { Server } from 'mcpcore'` works from ESM.
exports.Server = Server;
exports.Gateway = Gateway;
exports.Client = Client;
exports.Task = Task;
exports.EventStream = EventStream;
exports.WebhookReceiver = require('./webhooks').WebhookReceiver;
exports.Registry = Registry;
exports.HttpServing = HttpServing;
exports.appsMeta = appsMeta;
exports.refusal = refusal;
exports.pendingApproval = pendingApproval;
exports.page = page;
exports.rateLimit = middlewares.rateLimit;
exports.timeouts = middlewares.timeouts;
exports.responseLimit = middlewares.responseLimit;
exports.listCache = middlewares.listCache;
exports.requestLog = middlewares.requestLog;
exports.idempotency = middlewares.idempotency;
exports.ErrorCode = errors.ErrorCode;
exports.McpError = errors.McpError;
exports.RequestTimeout = errors.RequestTimeout;
exports.RequestCancelled = errors.RequestCancelled;
exports.ConnectionClosed = errors.ConnectionClosed;
exports.ProtocolError = errors.ProtocolError;
exports.TransportError = errors.TransportError;
exports.InvalidInput = errors.InvalidInput;
exports.ToolError = errors.ToolError;
exports.HttpError = errors.HttpError;
exports.InputRequired = errors.InputRequired;
exports.ResourceNotFound = errors.ResourceNotFound;
exports.AuthError = errors.AuthError;
exports.OAuth = OAuth;
exports.TokenRefused = TokenRefused;
exports.MemoryTokenStore = MemoryTokenStore;
exports.toJsonSchema = toJsonSchema;
exports.setLogger = setLogger;
exports.version = native.nativeVersion();
