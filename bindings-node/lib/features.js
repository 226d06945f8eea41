'use strict';
// Resources, prompts and completion: turning what a handler returns into MCP results, and the
// `complete` option into native completers. The handlers run through the same envelope callback
// as tools (lib/tools.js, src/handler.rs).

const { InvalidInput } = require('./errors');
const { nativeCallback } = require('./tools');

const invalid = (message) => new InvalidInput(message, { kind: 'invalid_input', code: -32602 });

/** True for a `{var}` URI template (RFC 6570) rather than a fixed URI. */
const isTemplate = (uri) => /\{[^}]+\}/.test(uri);

const isBytes = (v) => v instanceof Uint8Array || v instanceof ArrayBuffer;
const base64 = (v) => Buffer.from(v instanceof ArrayBuffer ? new Uint8Array(v) : v).toString('base64');

/**
 * The `contents` of a `resources/read` of `uri` for a reader's return `value`: a string → text;
 * a Buffer/Uint8Array/ArrayBuffer → a base64 blob (both with `mimeType` when given); an object
 * with `text` or `blob` → a ResourceContents (`uri`, `mimeType` filled in when missing); an
 * array → one contents per item; anything else → its JSON as `application/json` text.
 */
function toResourceContents(value, uri, mimeType) {
  if (Array.isArray(value)) return value.flatMap((v) => toResourceContents(v, uri, mimeType));
  const out = { uri };
  if (mimeType !== undefined) out.mimeType = mimeType;
  if (typeof value === 'string') return [{ ...out, text: value }];
  if (isBytes(value)) return [{ ...out, blob: base64(value) }];
  if (value != null && typeof value === 'object' && ('text' in value || 'blob' in value)) {
    const c = { ...out, ...value };
    if (isBytes(c.blob)) c.blob = base64(c.blob);
    return [c];
  }
  return [{ mimeType: 'application/json', ...out, text: JSON.stringify(value ?? null) }];
}

/** A prompt message from a string, `{role, content}` (a string content becomes text) or a
 * content object (`{type: ...}`, sent as the user's). */
function promptMessage(m) {
  if (typeof m === 'string') return { role: 'user', content: { type: 'text', text: m } };
  if (m != null && typeof m === 'object' && 'role' in m) {
    return typeof m.content === 'string' ? { ...m, content: { type: 'text', text: m.content } } : m;
  }
  if (m != null && typeof m === 'object' && typeof m.type === 'string') return { role: 'user', content: m };
  throw new TypeError('a prompt message must be a string, a {role, content} object or a content object');
}

/** The GetPromptResult for a renderer's return `value`: a string is one user message; a message
 * or an array of them the messages in order; an object with `messages` the result itself. */
function toPromptResult(value) {
  if (value != null && typeof value === 'object' && Array.isArray(value.messages)) {
    return { ...value, messages: value.messages.map(promptMessage) };
  }
  return { messages: (Array.isArray(value) ? value : [value]).map(promptMessage) };
}

/** A Completion from what a completer returned: an array of values or a Completion object. */
function toCompletion(value) {
  if (Array.isArray(value)) return { values: value.map(String) };
  if (value != null && typeof value === 'object' && Array.isArray(value.values)) return value;
  throw new TypeError('a completer must return an array of strings or {values, total, hasMore}');
}

/**
 * Attaches `complete` (`{name: ['values'] | (value, context) => values}`) through
 * `attach(name, values, callback)`, checking names against `known` when given.
 */
function attachCompleters(what, complete, known, attach) {
  for (const [name, source] of Object.entries(complete ?? {})) {
    if (known && !known.includes(name)) throw invalid(`${what}: cannot complete ${name}: no such ${known.kind}`);
    if (typeof source === 'function') {
      attach(name, null, nativeCallback(async (req) => toCompletion(await source(req.value, req.context ?? {}))));
    } else if (Array.isArray(source)) {
      attach(name, source.map(String), null);
    } else {
      throw invalid(`${what}: complete.${name} must be an array of values or a function`);
    }
  }
}

/** The variable names of an RFC 6570 template (`{+path}`, `{?q,lang}`, `{list*}` included). */
function templateVariables(uriTemplate) {
  const names = [];
  for (const [, expr] of uriTemplate.matchAll(/\{([^}]+)\}/g)) {
    for (let spec of expr.replace(/^[+#./;?&]/, '').split(',')) {
      spec = spec.split(':')[0].replace(/\*$/, '').trim();
      if (spec && !names.includes(spec)) names.push(spec);
    }
  }
  return Object.assign(names, { kind: 'template variable' });
}

/** Registers `server.resource(uri, spec, handler)` on the native Resources `n`; returns the
 * descriptor. */
function addResource(n, uri, spec, handler) {
  if (typeof spec === 'function') [spec, handler] = [{}, spec];
  spec = spec ?? {};
  if (typeof uri !== 'string' || uri === '') throw invalid('resource: the URI must be a non-empty string');
  if (typeof handler !== 'function') throw invalid(`resource ${uri}: the handler must be a function`);
  const template = isTemplate(uri);
  const d = { [template ? 'uriTemplate' : 'uri']: uri, name: spec.name ?? uri };
  for (const key of ['title', 'description', 'mimeType', 'annotations', 'size', '_meta']) {
    if (spec[key] !== undefined) d[key] = spec[key];
  }
  const read = nativeCallback(async (req, ctx) =>
    toResourceContents(await handler(req.variables ?? {}, ctx, req.uri), req.uri, spec.mimeType)
  );
  if (!template) {
    if (spec.complete !== undefined) throw invalid(`resource ${uri}: only a template has variables to complete`);
    n.add(JSON.stringify(d), read);
    return d;
  }
  n.addTemplate(JSON.stringify(d), read);
  try {
    attachCompleters(`resource ${uri}`, spec.complete, templateVariables(uri), (v, values, cb) => n.complete(uri, v, values, cb));
  } catch (e) {
    n.removeTemplate(d.name);
    throw e;
  }
  return d;
}

/** Registers `server.prompt(name, spec, handler)` on the native Prompts `n`; returns the
 * descriptor. */
function addPrompt(n, name, spec, handler) {
  if (typeof spec === 'function') [spec, handler] = [{}, spec];
  spec = spec ?? {};
  if (typeof handler !== 'function') throw invalid(`prompt ${name}: the handler must be a function`);
  const d = { name };
  for (const key of ['title', 'description', '_meta']) if (spec[key] !== undefined) d[key] = spec[key];
  const args = (spec.arguments ?? []).map((a) => (typeof a === 'string' ? { name: a } : a));
  if (args.length) d.arguments = args;
  const render = nativeCallback(async (a, ctx) => toPromptResult(await handler(a, ctx)));
  n.add(JSON.stringify(d), render);
  try {
    const known = Object.assign(args.map((a) => a.name), { kind: 'argument' });
    attachCompleters(`prompt ${name}`, spec.complete, known, (arg, values, cb) => n.complete(name, arg, values, cb));
  } catch (e) {
    n.remove(name);
    throw e;
  }
  return d;
}

module.exports = { addResource, addPrompt, toResourceContents, toPromptResult, toCompletion, isTemplate };
