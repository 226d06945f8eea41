'use strict';
// Turning user tool definitions into what the native registry takes: JSON Schema text for the
// schemas, and the envelope callback (see src/handler.rs) around the user's handler. What a
// handler's value becomes on the wire is the engine's rule set, the same in every binding. The
// envelope machinery and the handler's `ctx` serve resources, prompts and completers too.

const { InvalidInput, InputRequired, isRpcError, native: awaitNative, nativeSync } = require('./errors');
const { identity } = require('./server-auth');

const EMPTY_OBJECT_SCHEMA = Object.freeze({ type: 'object', properties: {} });

/** True for a Standard Schema (zod, valibot, arktype...): it has a `~standard` member (an
 * arktype type is a function). */
function isStandardSchema(s) {
  return (
    s != null && (typeof s === 'object' || typeof s === 'function') && s['~standard'] != null &&
    typeof s['~standard'] === 'object'
  );
}

/** `name`, loaded from mcpcore's own node_modules or the application's; undefined when absent. */
function optional(name) {
  for (const from of [__filename, require('node:path').join(process.cwd(), 'index.js')]) {
    try {
      return require('node:module').createRequire(from)(name);
    } catch {
      // not there
    }
  }
  return undefined;
}

/**
 * The JSON Schema of a Standard Schema whose `~standard` has no JSON Schema export, through
 * the converter its library publishes (an optional peer of mcpcore, installed beside it):
 * zod 3 (`zod-to-json-schema`) and valibot (`@valibot/to-json-schema`). Undefined otherwise.
 */
function converted(schema, std, io) {
  if (std.vendor === 'zod' && schema._def !== undefined) {
    const lib = optional('zod-to-json-schema');
    if (!lib) return { missing: 'zod-to-json-schema' };
    return { schema: lib.zodToJsonSchema(schema, { $refStrategy: 'none', pipeStrategy: io }) };
  }
  if (std.vendor === 'valibot') {
    const lib = optional('@valibot/to-json-schema');
    if (!lib) return { missing: '@valibot/to-json-schema' };
    return { schema: lib.toJsonSchema(schema, { errorMode: 'ignore' }) };
  }
  return undefined;
}

/**
 * A JSON Schema object from what the user gave: a plain JSON Schema object is used as is; a
 * Standard Schema is converted with its own JSON Schema export (`~standard.jsonSchema`, the
 * Standard JSON Schema interface of zod >= 4.2 and arktype, or a `toJSONSchema()` /
 * `toJsonSchema()` method), or with its library's converter (zod 3: zod-to-json-schema;
 * valibot: @valibot/to-json-schema, installed beside it). No schema library is a dependency of
 * mcpcore. `$ref`s to non-recursive definitions are inlined (LLM clients cannot follow them)
 * unless `refs` is true.
 */
function toJsonSchema(schema, io = 'input', what = 'inputSchema', refs = false) {
  if (schema == null) return io === 'input' ? EMPTY_OBJECT_SCHEMA : undefined;
  let out;
  if (isStandardSchema(schema)) {
    const std = schema['~standard'];
    const exporter = std.jsonSchema && std.jsonSchema[io];
    const other = typeof exporter === 'function' ? undefined : converted(schema, std, io);
    if (typeof exporter === 'function') out = exporter.call(std.jsonSchema, { target: 'draft-2020-12' });
    else if (other?.schema) out = other.schema;
    else if (typeof schema.toJSONSchema === 'function') out = schema.toJSONSchema({ io });
    else if (typeof schema.toJsonSchema === 'function') out = schema.toJsonSchema();
    else {
      const hint = other?.missing ? `install ${other.missing} beside it, or ` : '';
      throw new InvalidInput(
        `${what}: this Standard Schema (${std.vendor}) has no JSON Schema export; ${hint}pass a JSON Schema object instead`,
        { kind: 'invalid_input', code: -32602 }
      );
    }
    if (out && typeof out === 'object' && '$schema' in out) {
      const { $schema, ...rest } = out;
      out = rest;
    }
  } else if (typeof schema === 'object' && !Array.isArray(schema)) {
    out = schema;
  } else {
    throw new InvalidInput(`${what} must be a JSON Schema object or a Standard Schema`, {
      kind: 'invalid_input',
      code: -32602,
    });
  }
  if (refs || out === null || typeof out !== 'object' || !('$defs' in out || 'definitions' in out)) return out;
  return JSON.parse(nativeSync(() => require('./native').inlineRefs(JSON.stringify(out))));
}

/** What a thrown value becomes: `inputRequired` for InputRequired, a JSON-RPC error for an
 * McpError (or a host subclass) with a code, else a failure (isError for a tool, -32603 for the
 * other handlers): mcpcore's own subclasses (an InvalidInput or a RequestTimeout re-thrown from
 * a nested call) are failures, as in the Python binding. */
function failure(e) {
  if (e instanceof InputRequired) return { inputRequired: e.message };
  if (isRpcError(e)) {
    const rpc = { code: e.code, message: e.message };
    if (e.data !== undefined) rpc.data = e.data;
    return { rpc };
  }
  if (e instanceof Error) return { error: `${e.name}: ${e.message}` };
  return { error: String(e) };
}

const parse = (text) => (text == null ? undefined : JSON.parse(text));

/** A sampling message from a string or `{role, content}` (a string content becomes text). */
function samplingMessage(m) {
  if (typeof m === 'string') return { role: 'user', content: { type: 'text', text: m } };
  if (m != null && typeof m === 'object' && typeof m.content === 'string') {
    return { ...m, content: { type: 'text', text: m.content } };
  }
  return m;
}

const logData = (data) => JSON.stringify(data ?? null);

/** The key of a middleware call's `next` on its context (internal). */
const NEXT = Symbol('mcpcore.next');
/** The key of the native call on a context (internal: telemetry reads the conventions from it). */
const CALL = Symbol('mcpcore.call');

/**
 * The handler's `ctx`: the native call's fields, `signal` (an AbortSignal aborted when the caller
 * abandons the call: cancelled on the wire, timed out, or its connection closed), and client
 * input (`input`, `elicit`, `sample`, `listRoots`) on the core's ToolContext input API.
 *
 * One is made per call, so everything is on the prototype (an object literal with getters is
 * slow to build in V8); each method is a getter returning a function bound to the call, so
 * `const { log, signal } = ctx` keeps working.
 */
class HandlerContext {
  #call;
  #owner;
  #abort = null;

  constructor(call, owner) {
    this.#call = call;
    this.#owner = owner;
  }

  /** What the server's `lifespan` yielded (`new Server({ lifespan })`), while it serves. */
  get lifespan() { return this.#owner?._lifespanState; }

  get requestId() { return this.#call.requestId; }
  get protocolVersion() { return this.#call.protocolVersion; }
  get wantsProgress() { return this.#call.wantsProgress; }
  get clientCapabilities() { return parse(this.#call.clientCapabilities); }
  get requestState() { return parse(this.#call.requestState); }
  /** The authenticated caller on a protected server (undefined otherwise). */
  get auth() { return identity(this.#call.identity); }
  /** The client's `clientInfo` (`{name, version, ...}`) when it sent one. */
  get clientInfo() { return parse(this.#call.clientInfo) ?? undefined; }
  /** `header(name)`: the HTTP request header `name` over HTTP (undefined otherwise). */
  get header() {
    const call = this.#call;
    return (name) => call.header(String(name)) ?? undefined;
  }

  /** @internal The native call. */
  get [CALL]() { return this.#call; }

  /** @internal A middleware's call: passes `{method, params}` on (see lib/middleware.js). */
  get [NEXT]() {
    const call = this.#call;
    return async (request) => JSON.parse(await awaitNative(call.next(JSON.stringify(request))));
  }

  /** Made on first use: most handlers never look, and each costs a native thread-safe function. */
  get signal() {
    if (this.#abort === null) {
      const controller = new AbortController();
      this.#call.onCancel(() => controller.abort(new Error('the request was cancelled by the caller')));
      this.#abort = controller;
    }
    return this.#abort.signal;
  }

  get setRequestState() {
    const call = this.#call;
    return (state) => nativeSync(() => call.setRequestState(JSON.stringify(state ?? null)));
  }
  get reportProgress() {
    const call = this.#call;
    return (progress, total, message) => call.reportProgress(progress, total, message);
  }
  get log() {
    const call = this.#call;
    return (level, data, logger) => call.log(level, logData(data), logger ?? null);
  }
  get info() {
    const call = this.#call;
    return (data, logger) => call.log('info', logData(data), logger ?? null);
  }
  get warning() {
    const call = this.#call;
    return (data, logger) => call.log('warning', logData(data), logger ?? null);
  }
  get error() {
    const call = this.#call;
    return (data, logger) => call.log('error', logData(data), logger ?? null);
  }
  get input() {
    const call = this.#call;
    return async (requests) => JSON.parse(await awaitNative(call.input(JSON.stringify(requests))));
  }
  get approve() {
    const call = this.#call;
    return async (action, { key = 'approval' } = {}) => awaitNative(call.approve(key, action));
  }
  get elicit() {
    const one = this.#one();
    return async (key, message, schema) =>
      one(key, 'elicitation/create', { message, requestedSchema: toJsonSchema(schema, 'input', 'elicit schema') });
  }
  get sample() {
    const one = this.#one();
    return async (key, messages, options = {}) => {
      const { maxTokens = 1000, ...rest } = options;
      const list = (Array.isArray(messages) ? messages : [messages]).map(samplingMessage);
      return one(key, 'sampling/createMessage', { ...rest, messages: list, maxTokens });
    };
  }
  get listRoots() {
    const one = this.#one();
    return async (key) => (await one(key, 'roots/list', {})).roots;
  }

  #one() {
    const input = this.input;
    return async (key, method, params) => (await input({ [key]: { method, params } }))[key];
  }
}

/** The context of one call (see `HandlerContext`); `owner` (a Registry) holds the lifespan state. */
const context = (call, owner) => new HandlerContext(call, owner);

/** True for a Promise or any other thenable. */
const isThenable = (v) => v != null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';

/** The envelope of a thrown value; never throws itself. */
function failEnvelope(e) {
  try {
    return JSON.stringify(failure(e));
  } catch {
    return '{"error":"Error: the handler threw a value that cannot be printed"}';
  }
}

const isBytes = (v) => v instanceof Uint8Array || v instanceof ArrayBuffer;
const base64 = (v) => Buffer.from(v instanceof ArrayBuffer ? new Uint8Array(v) : v).toString('base64');
/** Bytes where the engine can take them as bytes (the value itself, or an item of a returned
 * array) travel as `{"$bytes": base64}`; bytes nested deeper are base64 text. */
const bytesMarker = (v) => (isBytes(v) ? { $bytes: base64(v) } : v);
function bytesAsText(_key, value) {
  // `this[_key]` is the value before its own toJSON ran (a Buffer serializes as {type, data}).
  const raw = this[_key];
  return isBytes(raw) ? base64(raw) : value;
}

/** The envelope of what a handler returned (a failure when it does not serialize). The engine
 * turns the value into the result (mcpcore::host::results): the same rules in every binding.
 * A string crosses as `[text]`, itself: no JSON pass here nor in the engine (src/handler.rs).
 * One with a lone surrogate takes the envelope, whose JSON the engine refuses as before (napi
 * would replace it with U+FFFD without a word). One-byte strings answer `isWellFormed` at once. */
function okEnvelope(value) {
  if (typeof value === 'string' && value.isWellFormed()) return [value];
  try {
    const top = Array.isArray(value) ? value.map(bytesMarker) : bytesMarker(value);
    return JSON.stringify({ value: top === undefined ? null : top }, bytesAsText);
  } catch (e) {
    return failEnvelope(e);
  }
}

/**
 * A native callback around `run(input, ctx)`, which returns (or resolves to) the handler's value.
 * It never throws (a throw inside a thread-safe function call would be an uncaught exception) and
 * answers with its reply (`okEnvelope`): the reply itself when `run` returned a plain value, so a
 * synchronous handler costs no Promise round trip; otherwise `[]` ("later"), and the reply goes
 * through `call.settle` when the Promise settles.
 */
const LATER = Object.freeze([]);

/**
 * The calls whose handler's Promise has not settled. Held here so that a Promise nothing else
 * references keeps its call waiting, as an awaited Promise does: were the call collected, the
 * engine would answer "ended without a reply" at whatever moment the garbage collector chose.
 */
const waiting = new Set();

/** `call.settle(reply)`, never throwing: a throw here would be an unhandled rejection. */
function settleSafely(call, reply) {
  waiting.delete(call);
  try {
    call.settle(reply);
  } catch {
    // The call is gone (the connection closed): nobody waits for the reply.
  }
}

function nativeCallback(run, owner) {
  return (inputJson, call) => {
    try {
      const out = run(JSON.parse(inputJson), context(call, owner));
      if (!isThenable(out)) return okEnvelope(out);
      // One `then` and one native call when it settles, instead of a Promise the native side
      // converts (src/handler.rs `ToolCall.settle`); `[]` says "later".
      waiting.add(call);
      out.then(
        (v) => settleSafely(call, okEnvelope(v)),
        (e) => settleSafely(call, failEnvelope(e))
      );
      return LATER;
    } catch (e) {
      waiting.delete(call);
      return failEnvelope(e);
    }
  };
}

/** The native callback for a tool's `handler(args, ctx)` (see `nativeCallback`). */
function envelopeCallback(handler, inputSchema, owner) {
  const validate = isStandardSchema(inputSchema) ? inputSchema['~standard'].validate : undefined;
  if (!validate) return nativeCallback(handler, owner);
  return nativeCallback(async (args, ctx) => {
    // The engine has checked the JSON Schema; this applies the schema's own parsing
    // (defaults, transforms) so the handler sees what the library would give it.
    const out = await validate.call(inputSchema['~standard'], args);
    if (out.issues) {
      const issues = out.issues.map((i) => i.message).join('; ');
      throw new InvalidArguments(issues);
    }
    return handler(out.value, ctx);
  }, owner);
}

/** Arguments the tool's Standard Schema rejected (an `isError` result "InvalidArguments: ..."). */
class InvalidArguments extends Error {
  constructor(message) {
    super(message);
    this.name = 'InvalidArguments';
  }
}

module.exports = { toJsonSchema, envelopeCallback, nativeCallback, isStandardSchema, isBytes, base64, NEXT, CALL };
