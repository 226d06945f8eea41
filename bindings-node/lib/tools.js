'use strict';
// Turning user tool definitions into what the native registry takes: JSON Schema text for the
// schemas, and the envelope callback (see src/handler.rs) around the user's handler.

const { InvalidInput, McpError } = require('./errors');

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

/** What a thrown value becomes: a JSON-RPC error for an McpError with a code, else isError. */
function failure(e) {
  if (e instanceof McpError && e.code) {
    const rpc = { code: e.code, message: e.message };
    if (e.data !== undefined) rpc.data = e.data;
    return { rpc };
  }
  if (e instanceof Error) return { error: `${e.name}: ${e.message}` };
  return { error: String(e) };
}

/**
 * The handler's `ctx`: the native call's fields plus `signal`, an AbortSignal aborted when the
 * caller abandons the call (cancelled on the wire, timed out, or its connection closed).
 */
function context(call) {
  const ac = new AbortController();
  call.onCancel(() => ac.abort(new Error('the request was cancelled by the caller')));
  return {
    get requestId() { return call.requestId; },
    get protocolVersion() { return call.protocolVersion; },
    get wantsProgress() { return call.wantsProgress; },
    reportProgress: (progress, total, message) => call.reportProgress(progress, total, message),
    log: (level, data, logger) => call.log(level, JSON.stringify(data ?? null), logger ?? null),
    info: (data, logger) => call.log('info', JSON.stringify(data ?? null), logger ?? null),
    warning: (data, logger) => call.log('warning', JSON.stringify(data ?? null), logger ?? null),
    error: (data, logger) => call.log('error', JSON.stringify(data ?? null), logger ?? null),
    signal: ac.signal,
  };
}

/**
 * The native callback for `handler(args, ctx)`. It is `async`, so a synchronous throw becomes a
 * rejection (a sync throw inside a thread-safe function call would be an uncaught exception), and
 * it always resolves to an envelope, so no JS error has to cross into Rust.
 */
function envelopeCallback(handler, inputSchema) {
  const validate = isStandardSchema(inputSchema) ? inputSchema['~standard'].validate : undefined;
  return async (argumentsJson, call) => {
    try {
      let args = JSON.parse(argumentsJson);
      if (validate) {
        // The engine has checked the JSON Schema; this applies the schema's own parsing
        // (defaults, transforms) so the handler sees what the library would give it.
        const out = await validate.call(inputSchema['~standard'], args);
        if (out.issues) {
          const issues = out.issues.map((i) => i.message).join('; ');
          return JSON.stringify({ error: `InvalidArguments: ${issues}` });
        }
        args = out.value;
      }
      const value = await handler(args, context(call));
      return JSON.stringify({ ok: toCallToolResult(value) });
    } catch (e) {
      return JSON.stringify(failure(e));
    }
  };
}

module.exports = { toJsonSchema, toCallToolResult, envelopeCallback, isStandardSchema };
