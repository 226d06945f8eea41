'use strict';
/**
 * Middleware: code around every request the server dispatches, on both lineages and every
 * transport, run by the engine's one chain (`Server.use`). A middleware is
 * `async (request, next) => result`: `request` is `{method, params, context, tool}`; `next(request)`
 * passes it on (changed or not) and resolves to the result, or rejects with the `McpError`
 * (code and data as on the wire) the rest of the chain answered. Return a result without calling
 * `next` to answer yourself; throw an `McpError` with a code to refuse with that error.
 *
 * The ready-made ones (`rateLimit`, `timeouts`, `responseLimit`, `listCache`, `requestLog`, `idempotency`) are configured
 * here and run by the engine.
 */

const { nativeCallback, NEXT, CALL } = require('./tools');
const telemetry = require('./telemetry');
const { makeError } = require('./errors');

/** Marks a ready-made middleware: its function adds it to a native chain. */
const READY = Symbol('mcpcore.readyMiddleware');

const ready = (name, add) => Object.freeze({ name, [READY]: add });

/**
 * At most `burst` requests at once per client, refilled at `perSecond` (a token bucket per
 * client: the token's subject, else the peer's address, else the session, else the client's
 * name). One more is refused with -32603 and `data` `{limit: 'rate', max, retryAfter}`; over HTTP
 * with 429 and `Retry-After`. `methods` limits which methods count (default: all); `store`: a
 * `redis://` URL whose buckets every instance behind one balancer shares (in memory otherwise).
 */
function rateLimit({ perSecond, burst, methods, store } = {}) {
  return ready('rateLimit', (chain) => chain.addRateLimit(perSecond, burst, methods ? [...methods] : null, store ?? null));
}

/**
 * A bound on how long a tool runs, in milliseconds: `defaultMs` for every tool, `perToolMs` by
 * name. A call over it is cancelled and answered with -32001 and `data` `{tool, timeoutMs}`.
 */
function timeouts({ defaultMs, perToolMs } = {}) {
  return ready('timeouts', (chain) => chain.addTimeouts(defaultMs ?? null, perToolMs ? { ...perToolMs } : null));
}

/** Results over `maxBytes` (serialized JSON) are refused with -32603 and `data`
 * `{limit: 'response_size', size, max}` instead of being sent. */
function responseLimit({ maxBytes } = {}) {
  return ready('responseLimit', (chain) => chain.addResponseLimit(maxBytes));
}

/** Answers repeated tools/list, resources/list, resources/templates/list and prompts/list pages
 * from memory: each kept for its own `ttlMs` hint (legacy results, which carry none: `ttlMs`
 * here, default 60 s), never with `ttlMs: 0`, per caller when the result is `cacheScope:
 * 'private'` or the catalogue is per identity; any list change empties it at once. At most
 * `maxEntries` (default 1000) results. */
function listCache({ ttlMs = 60_000, maxEntries = 1000 } = {}) {
  return ready('listCache', (chain) => chain.addListCache(ttlMs, maxEntries));
}

/** Logs each request when answered (the engine's log records, target `mcpcore::requests`, at
 * info; see `setLogger`): method, tool, client, revision, microseconds, error code. */
function requestLog() {
  return ready('requestLog', (chain) => chain.addRequestLog());
}

/**
 * Idempotent writes: a `tools/call` whose arguments carry a non-empty `idempotency_key` acts once
 * per client, tool and key. A repeat gets the first call's result (kept `ttlMs`, default 24 h)
 * without running the tool; a repeat while the first runs waits for it (at most `leaseMs`,
 * default 5 min); the key with other arguments is -32602 with `data`
 * `{reason: 'idempotency_key_reused', idempotencyKey}`; a call that threw a JSON-RPC error keeps
 * nothing. `store`: a `redis://` URL shared by every instance behind one balancer; in memory
 * otherwise.
 */
function idempotency({ ttlMs = 24 * 3600 * 1000, leaseMs = 300 * 1000, store } = {}) {
  return ready('idempotency', (chain) => chain.addIdempotency(ttlMs, leaseMs, store ?? null));
}

/** The request a middleware sees. */
class MiddlewareRequest {
  constructor(method, params, context) {
    /** The JSON-RPC method, e.g. `'tools/call'`. */
    this.method = method;
    /** Its params (for `tools/call`: `name`, `arguments`, `_meta`); change them before `next`. */
    this.params = params;
    /** The call: revision, client, identity, headers (the handlers' `ctx`). */
    this.context = context;
  }

  /** The tool a `tools/call` names; undefined for other methods. */
  get tool() {
    const name = this.method === 'tools/call' ? this.params?.name : undefined;
    return typeof name === 'string' ? name : undefined;
  }
}

/** The native callback running the JS middleware `fn`. */
function hostMiddleware(fn, owner) {
  return nativeCallback(async (input, context) => {
    const request = new MiddlewareRequest(input.method, input.params ?? {}, context);
    const pass = context[NEXT];
    const next = (req = request) => pass({ method: req.method, params: req.params });
    const result = await fn(request, next);
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      throw new TypeError(`a middleware resolves to the result object, not ${result === null ? 'null' : typeof result}`);
    }
    return result;
  }, owner);
}

/** Adds OpenTelemetry (lib/telemetry.js) outermost to the native `chain`. */
function addTelemetry(chain, owner) {
  // Outermost, and told of legacy sessions ending (mcp.server.session.duration).
  chain.addCallback(hostMiddleware(telemetry.middleware((ctx) => ctx[CALL]), owner), true, true);
}

/** Adds `middleware` (a function or a ready-made one) innermost to the native `chain`. */
function addTo(chain, middleware, owner) {
  if (middleware != null && typeof middleware[READY] === 'function') {
    middleware[READY](chain);
  } else if (typeof middleware === 'function') {
    chain.addCallback(hostMiddleware(middleware, owner));
  } else {
    throw makeError('invalid_input', `not a middleware: ${String(middleware)}`, { code: -32602 });
  }
}

module.exports = { rateLimit, timeouts, responseLimit, listCache, requestLog, idempotency, MiddlewareRequest, addTo, addTelemetry };
