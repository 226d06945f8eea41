// Middleware (`Server.use`): code around every request the server dispatches.
import type { ToolContext } from './mcpcore';

/** The request a middleware sees. */
export declare class MiddlewareRequest {
  /** The JSON-RPC method, e.g. `'tools/call'`. */
  method: string;
  /** Its params (for `tools/call`: `name`, `arguments`, `_meta`); change them before `next`. */
  params: { [key: string]: any };
  /** The call: revision, client, identity, headers (the handlers' `ctx`). */
  readonly context: ToolContext;
  /** The tool a `tools/call` names; undefined for other methods. */
  readonly tool: string | undefined;
}

/** A JSON-RPC result object. */
export type MiddlewareResult = { [key: string]: any };

/** Passes the request on; resolves to the result of the rest of the chain, or rejects with its
 * `McpError` (code and data as on the wire). */
export type MiddlewareNext = (request?: { method: string; params?: { [key: string]: any } }) => Promise<MiddlewareResult>;

/** A middleware function: change the request, answer it yourself, throw an `McpError` with a
 * code to refuse, or change the result of `next`. */
export type MiddlewareFunction = (request: MiddlewareRequest, next: MiddlewareNext) => Promise<MiddlewareResult>;

/** A ready-made middleware (run by the engine). */
export interface ReadyMiddleware {
  readonly name: 'rateLimit' | 'timeouts' | 'responseLimit' | 'listCache' | 'requestLog' | 'idempotency';
}

/** What `Server.use` takes. */
export type Middleware = MiddlewareFunction | ReadyMiddleware;

/** At most `burst` requests at once per client, refilled at `perSecond`; one more is -32603
 * with `data` `{limit: 'rate', max, retryAfter}` (HTTP 429 with `Retry-After`). */
export function rateLimit(options: { perSecond: number; burst: number; methods?: string[]; store?: string }): ReadyMiddleware;
/** A bound in ms on how long a tool runs (`defaultMs`, `perToolMs` by name); over it: -32001
 * with `data` `{tool, timeoutMs}`, the call cancelled. */
export function timeouts(options: { defaultMs?: number; perToolMs?: Record<string, number> }): ReadyMiddleware;
/** Results over `maxBytes` are refused: -32603 with `data` `{limit: 'response_size', size, max}`. */
export function responseLimit(options: { maxBytes: number }): ReadyMiddleware;
/** Answers repeated list pages (tools, resources, templates, prompts) from memory, each for its
 * own `ttlMs` hint (legacy results: `ttlMs` here, default 60 s), never with `ttlMs: 0`, per
 * caller when private or per identity; any list change empties it. At most `maxEntries`. */
export function listCache(options?: { ttlMs?: number; maxEntries?: number }): ReadyMiddleware;
/** Logs each request when answered (target `mcpcore::requests`, info; see `setLogger`). */
export function requestLog(): ReadyMiddleware;
/** Idempotent writes: tool calls carrying `idempotency_key` act once per client, tool and key
 * (repeats get the first result; other arguments: -32602); `store`: a `redis://` URL shared by
 * instances behind one balancer. */
export function idempotency(options?: { ttlMs?: number; leaseMs?: number; store?: string }): ReadyMiddleware;
