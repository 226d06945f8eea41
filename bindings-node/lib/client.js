'use strict';
// The client: connect to any MCP server (stdio or HTTP, either lineage), call its tools, read its
// resources and prompts, answer its requests for input, and receive its notifications. The
// protocol (negotiation, MRTR retries, tasks, the GET stream, caching) is the engine's; this
// file converts values and runs the host's callbacks.

const native = require('./native');
const errors = require('./errors');
const { nativeCallback } = require('./tools');
const { OAuth } = require('./auth');
const { attachStdout } = require('./stdout-feed');
const { pages, collect } = require('./pages');

const { native: awaitNative, nativeSync, makeError } = errors;

const parse = (text) => (text == null ? text : JSON.parse(text));
const json = (value) => JSON.stringify(value ?? {});

/** Roots as the engine takes them: URIs, `{uri, name}` objects. */
const rootsJson = (roots) => JSON.stringify(roots.map((r) => (typeof r === 'string' ? { uri: r } : r)));

/** The native input callbacks for `onElicitation`, `onSampling` and `roots`, or undefined. Each
 * handler receives the request params and returns (or resolves to) the answer; the engine
 * decides what a value answers (mcpcore::host::answers). */
function inputCallbacks(options) {
  const { onElicitation, onSampling, roots, urlElicitation } = options;
  if (onElicitation === undefined && onSampling === undefined && roots === undefined) return undefined;
  const input = { elicitationUrl: urlElicitation ?? true };
  if (onElicitation !== undefined) input.elicitation = nativeCallback((params) => onElicitation(params));
  if (onSampling !== undefined) input.sampling = nativeCallback((params) => onSampling(params));
  if (typeof roots === 'function') {
    input.roots = nativeCallback(async () => (await roots()).map((r) => (typeof r === 'string' ? { uri: r } : r)));
  } else if (roots !== undefined) {
    input.rootsJson = rootsJson(roots);
  }
  return input;
}

/** The connect options as the native module takes them. */
function nativeOptions(options) {
  const { onElicitation, onSampling, roots, urlElicitation, ...rest } = options;
  const input = inputCallbacks({ onElicitation, onSampling, roots, urlElicitation });
  return input === undefined ? rest : { ...rest, input };
}

let nextCallId = 1;

/** A task the server runs for a tool call (`callTool(name, args, { task: true })`). */
class Task {
  constructor(n) {
    /** @internal */
    this._native = n;
  }
  /** The task id; undefined when the server answered at once instead of creating a task. */
  get id() {
    return this._native.id ?? undefined;
  }
  /** The task's state: `{taskId, status, statusMessage, pollIntervalMs, ttlMs}`. */
  async status() {
    return JSON.parse(await awaitNative(this._native.status()));
  }
  /** Waits for the task to end and resolves to the tool's result (input it asks for is answered
   * by the client's handlers); a failed task rejects with its error, a cancelled one with
   * RequestCancelled. */
  async result() {
    return JSON.parse(await awaitNative(this._native.result()));
  }
  /** Asks the server to cancel the task. */
  cancel() {
    return awaitNative(this._native.cancel());
  }
}

/** A connection to an MCP server, with automatic lineage negotiation. */
class Client {
  constructor(n) {
    /** @internal */
    this._native = n;
    /** @internal notification listeners by method ('*': every method) */
    this._listeners = new Map();
  }

  /**
   * Spawns `command` (a program, `[program, ...args]`, or one command line such as
   * `'node server.js --flag'`, split like a shell would without expansion) and connects over
   * its stdio. Options: env, cwd, inheritStderr, protocolVersion, lineage ('modern'|'legacy'),
   * timeoutMs (the default per-request timeout, 60000), probeTimeoutMs (how long the 2026-07-28
   * probe waits before assuming a legacy server, 5000), and the answers to the server's
   * requests: onElicitation(params), onSampling(params) (sync or async), roots (an array of
   * URIs or `{uri, name}`, or a function returning one), urlElicitation (default true).
   */
  static async connectStdio(command, args = [], options = {}) {
    if (!Array.isArray(args)) [args, options] = [[], args ?? {}];
    const argv = Array.isArray(command) ? [...command, ...args] : [command, ...args];
    if (argv.length === 0 || typeof argv[0] !== 'string') throw makeError('invalid_input', 'connectStdio: no command', { code: -32602 });
    // The child's stdout is read on this thread (libuv), except on Windows.
    const opts = process.platform === 'win32' ? nativeOptions(options) : { ...nativeOptions(options), attach: attachStdout };
    return new Client(await awaitNative(native.Client.connectStdio(argv[0], argv.slice(1), opts)));
  }

  /**
   * Connects to an HTTP endpoint. Options: headers, bearerToken, transport ('auto' = Streamable
   * HTTP falling back to 2024-11-05 SSE, 'streamable', 'sse'), protocolVersion, lineage, timeoutMs,
   * probeTimeoutMs, auth (an `OAuth`: authorizes when the server answers 401; without it a 401
   * rejects with AuthError carrying `challenge`), for HTTPS caFile, clientCert, clientKey (PEM
   * files), and the handlers of `connectStdio`.
   */
  static async connectHttp(url, options = {}) {
    const { auth, ...rest } = options;
    if (auth !== undefined && !(auth instanceof OAuth)) throw new TypeError('auth must be an OAuth');
    const opts = nativeOptions(rest);
    const connecting = auth ? auth._native.connectHttp(url, opts) : native.Client.connectHttp(url, opts);
    return new Client(await awaitNative(connecting));
  }

  /**
   * The Server Card of the endpoint `url` (`GET <url>/server-card`, SEP-2127), read before
   * connecting: name, version, description and the `remotes` to reach the server. Unverified
   * (prefer what the connection reports). Options: headers, bearerToken, caFile. `unix:PATH`
   * URLs work too; a server without one rejects with HttpError (404).
   */
  static async serverCard(url, options = {}) {
    return JSON.parse(await awaitNative(native.Client.serverCard(url, nativeOptions(options))));
  }

  /** The negotiated revision, e.g. "2026-07-28" (still readable after `close()`). */
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
  /** What the server declared (`tools`, `resources`, `prompts`, `logging`...). */
  get serverCapabilities() {
    return JSON.parse(nativeSync(() => this._native.serverCapabilities));
  }
  /** The server's instructions, if any. */
  get instructions() {
    return nativeSync(() => this._native.instructions) ?? undefined;
  }

  // -- lists, one page at a time or all of them --------------------------------------------

  /** @internal Yields the items of every page of `method` (at most 1000 pages). */
  _pages(method, key) {
    return pages((cursor) => this._native.listPage(method, cursor), key, method);
  }

  /** The server's tools, one page at a time (`for await (const t of client.tools())`). */
  tools() {
    return this._pages('tools/list', 'tools');
  }
  /** The server's tools (every page; cached while the server says they are fresh). */
  async listTools() {
    return collect(this.tools());
  }
  /** The server's resources, one page at a time. */
  resources() {
    return this._pages('resources/list', 'resources');
  }
  /** The server's resources (every page). */
  async listResources() {
    return collect(this.resources());
  }
  /** The server's resource templates, one page at a time. */
  resourceTemplates() {
    return this._pages('resources/templates/list', 'resourceTemplates');
  }
  /** The server's resource templates (every page). */
  async listResourceTemplates() {
    return collect(this.resourceTemplates());
  }
  /** The server's prompts, one page at a time. */
  prompts() {
    return this._pages('prompts/list', 'prompts');
  }
  /** The server's prompts (every page). */
  async listPrompts() {
    return collect(this.prompts());
  }

  // -- apps (MCP Apps, SEP-1865) --------------------------------------------------------------

  /** True when the server declared MCP Apps (`io.modelcontextprotocol/ui`). */
  offersApps() {
    return nativeSync(() => this._native.offersApps());
  }
  /** The app at `uri` (a tool's `_meta.ui.resourceUri`): `{uri, html, meta}`, `meta` its
   * `_meta.ui` (`csp`, `permissions`, `domain`, `prefersBorder`) for the host's sandbox. What is
   * not `text/html;profile=mcp-app` rejects (kind `protocol`); rendering it is the host's. */
  async readApp(uri) {
    return JSON.parse(await awaitNative(this._native.readApp(uri)));
  }

  // -- skills (SEP-2640) ----------------------------------------------------------------------

  /** The server's Skills extension settings (`{directoryRead}`), or null when it did not
   * declare the extension (call the skill methods only when it did). */
  skillsSupport() {
    const text = nativeSync(() => this._native.skillsSupport());
    return text == null ? null : JSON.parse(text);
  }
  /** Every skill entry the server lists (`uri`, `frontmatter`, `resources` with each file's
   * `digest` and `size`). Reads no file; a listing may be partial (`getSkill` finds by URI). */
  async listSkills() {
    return collect(pages((cursor) => this._native.listSkillsPage(cursor), 'skills', 'skills/list'));
  }
  /** The entry of the skill whose SKILL.md is at `uri` (an unknown one rejects with code
   * -32602). */
  async getSkill(uri) {
    return JSON.parse(await awaitNative(this._native.getSkill(uri)));
  }
  /** Loads the skill of `entry`: its SKILL.md text, resolved only once its size, sha256 digest
   * and frontmatter match the entry. A mismatch rejects (kind `protocol`) and the content is
   * not returned: refresh the entry with `getSkill` (and ask the user again). */
  async loadSkill(entry) {
    return awaitNative(this._native.loadSkill(JSON.stringify(entry)));
  }
  /** The bytes (a Buffer) of the skill file `uri`, once they match `entry`'s size and digest;
   * a file the entry does not list rejects (kind `protocol`) without a read. */
  async readSkillFile(entry, uri) {
    return awaitNative(this._native.readSkillFile(JSON.stringify(entry), uri));
  }
  /** The direct children of the directory resource `uri` (every page): files, and
   * subdirectories with `mimeType` `inode/directory`. Only when the server declared
   * `directoryRead` (rejects with kind `invalid_input` otherwise, without a request). */
  async readDirectory(uri) {
    return JSON.parse(await awaitNative(this._native.readDirectory(uri)));
  }

  // -- resources, prompts, completion -------------------------------------------------------

  /** The contents of `uri` (`[{uri, mimeType, text | blob}]`); a missing resource rejects with
   * ResourceNotFound. */
  async readResource(uri) {
    return JSON.parse(await awaitNative(this._native.readResource(uri))).contents;
  }
  /** Asks for update notifications about `uri` (see `onResourceUpdated`): legacy
   * `resources/subscribe`; on 2026-07-28 the URI joins the filter of the client's listen stream
   * and this resolves once the server acknowledged it. An unknown (or hidden) resource rejects
   * with ResourceNotFound. */
  subscribe(uri) {
    return awaitNative(this._native.subscribe(uri));
  }
  /** Stops `subscribe`. */
  unsubscribe(uri) {
    return awaitNative(this._native.unsubscribe(uri));
  }
  /** Renders prompt `name` with its arguments (strings): the GetPromptResult. */
  async getPrompt(name, args) {
    return JSON.parse(await awaitNative(this._native.getPrompt(name, args === undefined ? null : JSON.stringify(args))));
  }
  /** Suggestions (strings) for `argument` of `ref` (`{prompt: name}` or `{resource: uriTemplate}`)
   * given what was typed and, optionally, `context` (the other arguments' values). */
  async complete(ref, argument, value, context) {
    const reference = ref.prompt !== undefined ? { type: 'ref/prompt', name: ref.prompt } : { type: 'ref/resource', uri: ref.resource };
    const out = await awaitNative(this._native.complete(JSON.stringify(reference), argument, value, context === undefined ? null : JSON.stringify(context)));
    return JSON.parse(out).completion.values;
  }

  // -- tools --------------------------------------------------------------------------------

  /**
   * Calls a tool. A failing tool gives a result with `isError: true` (arguments the tool's
   * schema refuses too, from 2025-11-25 on); protocol failures reject with McpError subclasses.
   * Options: timeoutMs (RequestTimeout), signal (an AbortSignal: aborting sends
   * `notifications/cancelled` and rejects with RequestCancelled), onProgress, logLevel, and
   * task (true: run it as a task and resolve to its `Task`; ttlMs how long the server keeps it).
   * A tool that runs only as a task is run as one without asking.
   */
  async callTool(name, args = {}, options = {}) {
    const { timeoutMs = null, signal, onProgress, logLevel = null, task = false, ttlMs = null } = options;
    if (task) return new Task(await awaitNative(this._native.callToolTask(name, json(args), ttlMs, timeoutMs)));
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

  // -- the session --------------------------------------------------------------------------

  /** Checks the server answers (`ping`; `server/discover` on 2026-07-28). */
  ping() {
    return awaitNative(this._native.ping());
  }
  /** Asks for log messages at `level` ('debug' ... 'emergency') and above (see `onLog`). */
  setLogLevel(level) {
    return awaitNative(this._native.setLogLevel(level));
  }
  /** Replaces the roots given as an array at connect and tells the server. */
  setRoots(roots) {
    nativeSync(() => this._native.setRoots(rootsJson(roots)));
  }
  /** Tells the server that what a `roots` function answers changed. */
  rootsChanged() {
    nativeSync(() => this._native.rootsChanged());
  }

  // -- notifications ------------------------------------------------------------------------

  /** Calls `handler({level, logger, data})` for every log message the server sends. */
  onLog(handler) {
    this._native.onLog((level, logger, data) => handler({ level, logger: logger ?? undefined, data: JSON.parse(data) }));
  }
  /** Calls `handler(method, params)` for every other notification of the server (list changes,
   * resource updates...); replaces the onToolsChanged... handlers. On 2026-07-28, where these
   * travel only on a `subscriptions/listen` stream, registering a handler makes the client open
   * one asking for what the handlers want (and the `subscribe`d resources), keep it open and
   * close it with the client; `notificationsReady` waits for the server's acknowledgement. */
  onNotification(handler) {
    this._listeners = new Map([['*', handler]]);
    this._listen();
  }
  /** Calls `handler()` when the server's tool list changed. */
  onToolsChanged(handler) {
    this._on('notifications/tools/list_changed', () => handler());
  }
  /** Calls `handler()` when the server's prompt list changed. */
  onPromptsChanged(handler) {
    this._on('notifications/prompts/list_changed', () => handler());
  }
  /** Calls `handler()` when the server's resource list changed. */
  onResourcesChanged(handler) {
    this._on('notifications/resources/list_changed', () => handler());
  }
  /** Calls `handler(uri)` when a resource `subscribe`d to changed. */
  onResourceUpdated(handler) {
    this._on('notifications/resources/updated', (params) => handler(params.uri));
  }
  /** @internal */
  _on(method, listener) {
    this._listeners.delete('*');
    this._listeners.set(method, listener);
    this._listen();
  }
  /** 2026-07-28: resolves once the server acknowledged the client's listen stream as the
   * handlers and subscriptions want it now, to the filter it agreed to (e.g.
   * `{toolsListChanged: true}`); `null` when no stream is needed, and on legacy sessions. */
  async notificationsReady() {
    const acked = await awaitNative(this._native.notificationsReady());
    return acked === null ? null : JSON.parse(acked);
  }
  /** @internal */
  _listen() {
    const methods = this._listeners.has('*') ? null : [...this._listeners.keys()];
    this._native.onNotification((method, params) => {
      const all = this._listeners.get('*');
      if (all) all(method, JSON.parse(params));
      else this._listeners.get(method)?.(JSON.parse(params));
    }, methods);
  }

  /** Sends any request and resolves to its result. */
  async request(method, params = {}) {
    return JSON.parse(await awaitNative(this._native.request(method, json(params))));
  }

  /** Closes the connection (a spawned server is stopped); `protocolVersion` stays readable. */
  close() {
    return awaitNative(this._native.close());
  }

  async [Symbol.asyncDispose]() {
    await this.close();
  }
}

const clientEvents = require('./client-events');

Object.assign(Client.prototype, clientEvents.methods);

module.exports = { Client, Task, EventStream: clientEvents.EventStream };
