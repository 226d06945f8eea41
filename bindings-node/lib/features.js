'use strict';
// Resources, prompts and completion: their descriptors, and the `complete` option as native
// completers. The handlers run through the same envelope callback as tools (lib/tools.js,
// src/handler.rs); the engine turns what they return into MCP results (one rule set for every
// binding: mcpcore::host::results).

const { InvalidInput } = require('./errors');
const { nativeCallback } = require('./tools');

const invalid = (message) => new InvalidInput(message, { kind: 'invalid_input', code: -32602 });

/** True for a `{var}` URI template (RFC 6570) rather than a fixed URI. */
const isTemplate = (uri) => /\{[^}]+\}/.test(uri);

/**
 * Attaches `complete` (`{name: ['values'] | (value, context) => values}`) through
 * `attach(name, values, callback)`, checking names against `known` when given.
 */
function attachCompleters(what, complete, known, attach) {
  for (const [name, source] of Object.entries(complete ?? {})) {
    if (known && !known.includes(name)) throw invalid(`${what}: cannot complete ${name}: no such ${known.kind}`);
    if (typeof source === 'function') {
      attach(name, null, nativeCallback((req) => source(req.value, req.context ?? {})));
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
function addResource(n, uri, spec, handler, owner) {
  if (typeof spec === 'function') [spec, handler] = [{}, spec];
  spec = spec ?? {};
  if (typeof uri !== 'string' || uri === '') throw invalid('resource: the URI must be a non-empty string');
  if (typeof handler !== 'function') throw invalid(`resource ${uri}: the handler must be a function`);
  const template = isTemplate(uri);
  const d = { [template ? 'uriTemplate' : 'uri']: uri, name: spec.name ?? uri };
  for (const key of ['title', 'description', 'mimeType', 'annotations', 'size', '_meta']) {
    if (spec[key] !== undefined) d[key] = spec[key];
  }
  const read = nativeCallback((req, ctx) => handler(req.variables ?? {}, ctx, req.uri), owner);
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
function addPrompt(n, name, spec, handler, owner) {
  if (typeof spec === 'function') [spec, handler] = [{}, spec];
  spec = spec ?? {};
  if (typeof handler !== 'function') throw invalid(`prompt ${name}: the handler must be a function`);
  const d = { name };
  for (const key of ['title', 'description', '_meta']) if (spec[key] !== undefined) d[key] = spec[key];
  const args = (spec.arguments ?? []).map((a) => (typeof a === 'string' ? { name: a } : a));
  if (args.length) d.arguments = args;
  const render = nativeCallback((a, ctx) => handler(a, ctx), owner);
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

module.exports = { addResource, addPrompt, isTemplate };
