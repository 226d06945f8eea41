'use strict';
// Turning user tool definitions into what the native registry takes: JSON Schema text for the
// schemas, and the envelope callback (see src/handler.rs) around the user's handler. The
// envelope machinery and the handler's `ctx` serve resources, prompts and completers too.

const { InvalidInput, InputRequired, McpError, native: awaitNative, nativeSync } = require('./errors');

const EMPTY_OBJECT_SCHEMA = Object.freeze({ type: 'object', properties: {} });

/** True for a Standard Schema (zod 4, valibot, arktype...): it has a `~standard` member. */
function isStandardSchema(s) {
  return s != null && typeof s === 'object' && s['~standard'] != null && typeof s['~standard'] === 'object';
}

/**
 * A JSON Schema object from what the user gave: a plain JSON Schema object is used as is; a
 * Standard Schema is converted with its own JSON Schema export (`~standard.jsonSchema`, the
 * Standard JSON Schema interface zod >= 4.2 implements, or a `toJSONSchema()` method). No
 * schema library is a dependency of mcpcore.
 */
function toJsonSchema(schema, io = 'input', what = 'inputSchema') {
  if (schema == null) return io === 'input' ? EMPTY_OBJECT_SCHEMA : undefined;
  if (isStandardSchema(schema)) {
    const std = schema['~standard'];
    const exporter = std.jsonSchema && std.jsonSchema[io];
    if (typeof exporter === 'function') return exporter.call(std.jsonSchema, { target: 'draft-2020-12' });
    if (typeof schema.toJSONSchema === 'function') return schema.toJSONSchema({ io });
    throw new InvalidInput(
      `${what}: this Standard Schema (${std.vendor}) has no JSON Schema export; pass a JSON Schema object ` +
        '(e.g. z.toJSONSchema(schema)) instead',
      { kind: 'invalid_input', code: -32602 }
    );
  }
  if (typeof schema === 'object' && !Array.isArray(schema)) return schema;
  throw new InvalidInput(`${what} must be a JSON Schema object or a Standard Schema`, {
    kind: 'invalid_input',
    code: -32602,
  });
}

/** True when `v` looks like a CallToolResult the handler built itself. */
function isCallToolResult(v) {
  return v != null && typeof v === 'object' && !Array.isArray(v) && Array.isArray(v.content);
}

/**
 * A handler's return value as a CallToolResult: a string → one text content; a CallToolResult
 * (an object with a `content` array) → unchanged; any other plain object → structuredContent plus
 * the same as JSON text; undefined/null → no content; anything else → its JSON as text.
 */
function toCallToolResult(value) {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (value === undefined || value === null) return { content: [] };
  if (isCallToolResult(value)) return value;
  if (typeof value === 'object' && !Array.isArray(value)) {
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  }
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

/** What a thrown value becomes: `inputRequired` for InputRequired, a JSON-RPC error for an
 * McpError with a code, else a failure (isError for a tool, -32603 for the other handlers). */
function failure(e) {
  if (e instanceof InputRequired) return { inputRequired: e.message };
  if (e instanceof McpError && e.code) {
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

/**
 * The handler's `ctx`: the native call's fields, `signal` (an AbortSignal aborted when the caller
 * abandons the call: cancelled on the wire, timed out, or its connection closed), and client
 * input (`input`, `elicit`, `sample`, `listRoots`) on the core's ToolContext input API.
 */
function context(call) {
  // The AbortController (and the native cancel callback behind it) is made on first use of
  // `signal`: most handlers never look, and each registration costs a thread-safe function.
  let ac = null;
  const signal = () => {
    if (ac === null) {
      const controller = new AbortController();
      call.onCancel(() => controller.abort(new Error('the request was cancelled by the caller')));
      ac = controller;
    }
    return ac.signal;
  };
  const input = async (requests) => JSON.parse(await awaitNative(call.input(JSON.stringify(requests))));
  const one = async (key, method, params) => (await input({ [key]: { method, params } }))[key];
  return {
    get requestId() { return call.requestId; },
    get protocolVersion() { return call.protocolVersion; },
    get wantsProgress() { return call.wantsProgress; },
    get clientCapabilities() { return parse(call.clientCapabilities); },
    get requestState() { return parse(call.requestState); },
    setRequestState: (state) => nativeSync(() => call.setRequestState(JSON.stringify(state ?? null))),
    reportProgress: (progress, total, message) => call.reportProgress(progress, total, message),
    log: (level, data, logger) => call.log(level, JSON.stringify(data ?? null), logger ?? null),
    info: (data, logger) => call.log('info', JSON.stringify(data ?? null), logger ?? null),
    warning: (data, logger) => call.log('warning', JSON.stringify(data ?? null), logger ?? null),
    error: (data, logger) => call.log('error', JSON.stringify(data ?? null), logger ?? null),
    input,
    elicit: async (key, message, schema) =>
      one(key, 'elicitation/create', { message, requestedSchema: toJsonSchema(schema, 'input', 'elicit schema') }),
    sample: async (key, messages, options = {}) => {
      const { maxTokens = 1000, ...rest } = options;
      const list = (Array.isArray(messages) ? messages : [messages]).map(samplingMessage);
      return one(key, 'sampling/createMessage', { ...rest, messages: list, maxTokens });
    },
    listRoots: async (key) => (await one(key, 'roots/list', {})).roots,
    get signal() { return signal(); },
  };
}

/**
 * A native callback around `run(input, ctx)`, which resolves to the answer the native handler
 * expects. It is `async`, so a synchronous throw becomes a rejection (a sync throw inside a
 * thread-safe function call would be an uncaught exception), and it always resolves to an
 * envelope, so no JS error has to cross into Rust.
 */
function nativeCallback(run) {
  return async (inputJson, call) => {
    try {
      return JSON.stringify({ ok: await run(JSON.parse(inputJson), context(call)) });
    } catch (e) {
      return JSON.stringify(failure(e));
    }
  };
}

/** The native callback for a tool's `handler(args, ctx)` (see `nativeCallback`). */
function envelopeCallback(handler, inputSchema) {
  const validate = isStandardSchema(inputSchema) ? inputSchema['~standard'].validate : undefined;
  return nativeCallback(async (args, ctx) => {
    if (validate) {
      // The engine has checked the JSON Schema; this applies the schema's own parsing
      // (defaults, transforms) so the handler sees what the library would give it.
      const out = await validate.call(inputSchema['~standard'], args);
      if (out.issues) {
        const issues = out.issues.map((i) => i.message).join('; ');
        throw new InvalidArguments(issues);
      }
      args = out.value;
    }
    return toCallToolResult(await handler(args, ctx));
  });
}

/** Arguments the tool's Standard Schema rejected (an `isError` result "InvalidArguments: ..."). */
class InvalidArguments extends Error {
  constructor(message) {
    super(message);
    this.name = 'InvalidArguments';
  }
}

module.exports = { toJsonSchema, toCallToolResult, envelopeCallback, nativeCallback, isStandardSchema };
