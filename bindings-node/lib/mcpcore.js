'use strict';
// mcpcore: the Model Context Protocol for Node, on one Rust engine.
//
// Both protocol lineages (stateless 2026-07-28 and the `initialize`-based 2025-11-25 ...
// 2024-11-05), stdio and HTTP, one registry for local and remote tools. This file only converts
// values and errors; the protocol lives in the `mcpcore` crate (see ../src and ../../core).

const native = require('../index.js');
const errors = require('./errors');
const { toJsonSchema, envelopeCallback } = require('./tools');
const { createNodeHandler } = require('./node-handler');
const features = require('./features');
const { OAuth, MemoryTokenStore } = require('./auth');
const { TokenRefused, serverAuth } = require('./server-auth');

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
   * Registers a tool. `spec` is `{description, inputSchema, outputSchema, title}` (schemas are
   * JSON Schema objects or Standard Schemas such as zod 4); `handler(args, ctx)` may return a
   * value or a Promise. Returns the tool definition. Throws InvalidInput for a bad or taken name.
   */
  tool(name, spec, handler) {
    if (typeof spec === 'function') [spec, handler] = [{}, spec];
    spec = spec ?? {};
    if (typeof handler !== 'function') throw makeError('invalid_input', `tool ${name}: the handler must be a function`, { code: -32602 });
    const inputSchema = toJsonSchema(spec.inputSchema, 'input', 'inputSchema');
    const outputSchema = toJsonSchema(spec.outputSchema, 'output', 'outputSchema');
    const description = spec.description ?? '';
    nativeSync(() =>
      this._native.addTool(
        name,
        description,
        JSON.stringify(inputSchema),
        envelopeCallback(handler, spec.inputSchema),
        outputSchema === undefined ? null : JSON.stringify(outputSchema),
        spec.title ?? null
      )
    );
    const tool = { name, description, inputSchema };
    if (outputSchema !== undefined) tool.outputSchema = outputSchema;
    if (spec.title !== undefined) tool.title = spec.title;
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

  /** The ids of connected servers. */
  get servers() {
    return this._native.servers();
  }
}

/** A running HTTP server (from `Server.serveHttp`). */
class HttpServing {
  constructor(n) {
    /** @internal */
    this._native = n;
  }
  /** The endpoint URL, e.g. `http://127.0.0.1:8000/mcp`. */
  get url() {
    return this._native.url;
  }
  /** The bound port. */
  get port() {
    return this._native.port;
  }
  /** Stops gracefully: in-flight requests finish within the grace period (30 s by default). */
  shutdown() {
    return awaitNative(this._native.shutdown());
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
class Server {
  constructor(options = {}) {
    const { name = 'mcpcore-node', version = native.nativeVersion(), instructions, registry } = options;
    /** The registry served (shared when passed in). */
    this.registry = registry ?? new Registry();
    /** @internal */
    this._native = new native.Server(this.registry._native, name, version, instructions ?? null);
    /** @internal */
    this._handlers = [];
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
    const d = nativeSync(() => features.addResource(this._resources(), uri, spec, handler));
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
    return nativeSync(() => features.addPrompt(this._prompts(), name, spec, handler));
  }

  /** Removes a prompt; false when there was none. */
  removePrompt(name) {
    return this._pro?.remove(name) ?? false;
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

  /** Serves on this process's stdin/stdout until stdin closes. Write logs to stderr. */
  serveStdio() {
    return awaitNative(this._native.serveStdio());
  }

  /**
   * Starts serving HTTP: both lineages on `path` (default `/mcp`), 2024-11-05 SSE on `/sse`.
   * Options: host (an IP, default 127.0.0.1), port (0 = a free one), path, responseMode ('auto',
   * 'json', 'sse'), maxBody, allowedHosts, allowedOrigins, anyHost, shutdownGraceMs,
   * headerTimeoutMs, bodyTimeoutMs, maxConnections, tlsCertFile, tlsKeyFile, tlsClientCaFile,
   * store ('redis://HOST:PORT[/DB]': sessions shared by several instances), stateKeys (default:
   * MCPCORE_STATE_KEY), and auth (a protected server: see `Auth` in mcpcore.d.ts and
   * lib/server-auth.js).
   */
  async serveHttp(options = {}) {
    const { auth, ...rest } = options ?? {};
    if (typeof rest.stateKeys === 'string') rest.stateKeys = [rest.stateKeys];
    const target = auth === undefined ? this._native : this._native.withAuth(serverAuth(auth));
    return new HttpServing(await awaitNative(target.serveHttp(rest)));
  }

  /**
   * An `(req, res)` handler for `http.createServer` or Express, serving this server (see
   * lib/node-handler.js for how). `close()` stops what it started.
   */
  nodeHandler(options = {}) {
    const h = createNodeHandler(this, options);
    this._handlers.push(h);
    return h.handler;
  }

  /** Stops the listeners started by `nodeHandler()`. */
  async close() {
    const handlers = this._handlers.splice(0);
    await Promise.all(handlers.map((h) => h.close()));
  }
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

/** A connection to an MCP server, with automatic lineage negotiation. */
class Client {
  constructor(n) {
    /** @internal */
    this._native = n;
  }

  /**
   * Spawns `command` (a program, or `[program, ...args]`) with `args` and connects over its
   * stdio. Options: env, cwd, inheritStderr, protocolVersion, lineage ('modern'|'legacy'),
   * timeoutMs (the default per-request timeout, 60000).
   */
  static async connectStdio(command, args = [], options = {}) {
    if (!Array.isArray(args)) [args, options] = [[], args ?? {}];
    const argv = Array.isArray(command) ? [...command, ...args] : [command, ...args];
    if (argv.length === 0 || typeof argv[0] !== 'string') throw makeError('invalid_input', 'connectStdio: no command', { code: -32602 });
    return new Client(await awaitNative(native.Client.connectStdio(argv[0], argv.slice(1), options)));
  }

  /**
   * Connects to an HTTP endpoint. Options: headers, bearerToken, transport ('auto' = Streamable
   * HTTP falling back to 2024-11-05 SSE, 'streamable', 'sse'), protocolVersion, lineage, timeoutMs,
   * auth (an `OAuth`: authorizes when the server answers 401), and for HTTPS caFile, clientCert,
   * clientKey (PEM files).
   */
  static async connectHttp(url, options = {}) {
    const { auth, ...rest } = options;
    if (auth !== undefined && !(auth instanceof OAuth)) throw new TypeError('auth must be an OAuth');
    const connecting = auth ? auth._native.connectHttp(url, rest) : native.Client.connectHttp(url, rest);
    return new Client(await awaitNative(connecting));
  }

  /** The negotiated revision, e.g. "2026-07-28". */
  get protocolVersion() {
    return nativeSync(() => this._native.protocolVersion);
  }
  /** 'modern' or 'legacy'. */
  get lineage() {
    return nativeSync(() => this._native.lineage);
  }
  /** The server's name and version (and more), when it sent them. */
  get serverInfo() {
    return parse(nativeSync(() => this._native.serverInfo)) ?? undefined;
  }
  /** The server's instructions, if any. */
  get instructions() {
    return nativeSync(() => this._native.instructions) ?? undefined;
  }

  /** The server's tools (every page). */
  async listTools() {
    return JSON.parse(await awaitNative(this._native.listTools()));
  }

  /** Calls `handler({level, logger, data})` for every log message the server sends. */
  onLog(handler) {
    this._native.onLog((level, logger, data) => handler({ level, logger: logger ?? undefined, data: JSON.parse(data) }));
  }

  /**
   * Calls a tool. A failing tool gives a result with `isError: true`; protocol failures reject
   * with McpError subclasses. Options: timeoutMs (RequestTimeout), signal (an AbortSignal:
   * aborting sends `notifications/cancelled` and rejects with RequestCancelled), onProgress.
   */
  async callTool(name, args = {}, options = {}) {
    const { timeoutMs = null, signal, onProgress, logLevel = null } = options;
    if (signal?.aborted) {
      throw makeError('cancelled', `the call to ${name} was cancelled`, { code: -32603, cause: signal.reason });
    }
    const id = nextCallId;
    nextCallId = nextCallId >= 0xffffffff ? 1 : nextCallId + 1;
    const progress = onProgress ? (p, total, message) => onProgress({ progress: p, total: total ?? undefined, message: message ?? undefined }) : null;
    const pending = this._native.callTool(name, json(args), timeoutMs, signal ? id : null, progress, logLevel);
    const onAbort = () => this._native.cancel(id);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return JSON.parse(await awaitNative(pending));
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Sends any request and resolves to its result. */
  async request(method, params = {}) {
    return JSON.parse(await awaitNative(this._native.request(method, json(params))));
  }

  /** Closes the connection (a spawned server is stopped). */
  close() {
    return awaitNative(this._native.close());
  }

  async [Symbol.asyncDispose]() {
    await this.close();
  }
}

// One `exports.X =` per name so that `import { Server } from 'mcpcore'` works from ESM.
exports.Server = Server;
exports.Gateway = Gateway;
exports.Client = Client;
exports.Registry = Registry;
exports.HttpServing = HttpServing;
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
exports.version = native.nativeVersion();
