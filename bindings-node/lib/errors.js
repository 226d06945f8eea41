'use strict';
// The errors of mcpcore. Every failure from the engine arrives as one of these classes, with the
// JSON-RPC `code` and `data` when the peer sent them (`httpStatus` for HTTP failures). The native
// module throws plain Errors whose message is `MCPCORE_ERROR {json}`; `fromNative` decodes them.

const PREFIX = 'MCPCORE_ERROR ';

/** JSON-RPC error codes MCP uses (REQUEST_TIMEOUT is mcpcore's own, never sent on the wire). */
const ErrorCode = Object.freeze({
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  REQUEST_TIMEOUT: -32001,
  RESOURCE_NOT_FOUND: -32002,
  HEADER_MISMATCH: -32020,
  MISSING_REQUIRED_CLIENT_CAPABILITY: -32021,
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
});

/** Base of every mcpcore error; thrown as itself for a JSON-RPC error from the peer. Thrown by a
 * tool with a non-zero `code`, it is sent to the caller as that JSON-RPC error. */
class McpError extends Error {
  constructor(message, options = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = new.target.name;
    /** The JSON-RPC error code (0 when none applies). */
    this.code = options.code ?? 0;
    /** The JSON-RPC error `data` (undefined when absent). */
    this.data = options.data ?? undefined;
    /** The HTTP status of an HTTP failure, else undefined. */
    this.httpStatus = options.httpStatus ?? undefined;
    /** The engine's error kind: 'rpc', 'timeout', 'cancelled', 'closed', 'protocol', 'transport',
     * 'invalid_input', 'tool', 'http', 'input_required' or 'auth'. */
    this.kind = options.kind ?? 'rpc';
  }
}
/** The request did not complete within its timeout (it was cancelled on the wire). */
class RequestTimeout extends McpError {}
/** The request was cancelled (e.g. its AbortSignal fired); the server was told. */
class RequestCancelled extends McpError {}
/** The connection closed (e.g. the server process exited) before an answer arrived. */
class ConnectionClosed extends McpError {}
/** The peer broke the protocol, or no protocol version is acceptable to both sides. */
class ProtocolError extends McpError {}
/** Spawning or reaching the server failed at the OS or network level. */
class TransportError extends McpError {}
/** Something passed to mcpcore is invalid (a bad tool name, a taken name, a bad option...). */
class InvalidInput extends McpError {}
/** A tool failed; servers turn this into an `isError` result. */
class ToolError extends McpError {}
/** An HTTP server answered with an error status and no JSON-RPC error. */
class HttpError extends McpError {}
/**
 * A 2026-07-28 request needs answers from the client that it did not send yet. Rejected by
 * `ctx.elicit`/`sample`/`listRoots`/`input` on a 2026-07-28 request: **let it propagate** out of
 * your tool, resource or prompt handler. The server then answers `input_required` with the
 * questions, and the client's retry runs the handler again from the start, now with the answers
 * (catching it does not stop that: a call whose input request rejected with it always ends as
 * `input_required`). Legacy sessions never reject with it: there the request goes to the client
 * and the promise resolves with its answer.
 */
class InputRequired extends McpError {}
/** Authorization failed (OAuth 2.1 over HTTP): `error` is the OAuth error code
 * (`invalid_grant`, `insufficient_scope`, `access_denied`...) or mcpcore's own refusal
 * (`resource_mismatch`, `issuer_mismatch`, `pkce_unsupported`, `iss_mismatch`, `retry_limit`...);
 * a 401 to a client without `auth` is `unauthorized`, with the server's `challenge`. */
class AuthError extends McpError {
  constructor(message, options = {}) {
    super(message, options);
    /** The OAuth `error` code, or mcpcore's refusal. */
    this.error = options.error ?? '';
    /** The `error_description`. */
    this.errorDescription = options.errorDescription ?? undefined;
    /** The `error_uri`. */
    this.errorUri = options.errorUri ?? undefined;
    /** The server's `WWW-Authenticate` challenge of a 401 or 403, as received. */
    this.challenge = options.challenge ?? undefined;
  }
}

/** The resource asked for does not exist (`-32002` on legacy revisions, `-32602` on
 * 2026-07-28); `data.uri` names it. */
class ResourceNotFound extends McpError {}

/** The error class of each engine error kind (`mcpcore::ErrorKind::as_str`). */
const CLASSES = {
  rpc: McpError,
  timeout: RequestTimeout,
  cancelled: RequestCancelled,
  closed: ConnectionClosed,
  protocol: ProtocolError,
  transport: TransportError,
  invalid_input: InvalidInput,
  tool: ToolError,
  http: HttpError,
  input_required: InputRequired,
  resource_not_found: ResourceNotFound,
  auth: AuthError,
};

/** mcpcore's own error classes below McpError: thrown from a handler (re-thrown from a nested
 * call, say), they are a failure like any other error, not the JSON-RPC error to answer with;
 * McpError itself, or the host's own subclass, is (as the Python binding decides). */
const OWN = new Set(Object.values(CLASSES).filter((c) => c !== McpError));

/** True when `e` names the JSON-RPC error a handler answers with: an McpError (or a host
 * subclass) with a non-zero code. */
function isRpcError(e) {
  return e instanceof McpError && Boolean(e.code) && !OWN.has(e.constructor);
}


/** Builds the McpError subclass for an engine error kind. */
function makeError(kind, message, fields = {}) {
  const Class = CLASSES[kind] ?? McpError;
  return new Class(message, { ...fields, kind: CLASSES[kind] ? kind : 'rpc' });
}

/** Decodes an error thrown by the native module; other errors pass through unchanged. */
function fromNative(e) {
  if (!(e instanceof Error) || typeof e.message !== 'string' || !e.message.startsWith(PREFIX)) return e;
  let d;
  try {
    d = JSON.parse(e.message.slice(PREFIX.length));
  } catch {
    return e;
  }
  const err = makeError(d.kind, d.message, {
    code: d.code,
    data: d.data ?? undefined,
    httpStatus: d.httpStatus ?? undefined,
    error: d.error ?? undefined,
    errorDescription: d.errorDescription ?? undefined,
    errorUri: d.errorUri ?? undefined,
    challenge: d.challenge ?? undefined,
  });
  return err;
}

/** Awaits a native promise, rethrowing its error as an McpError. */
async function native(promise) {
  try {
    return await promise;
  } catch (e) {
    throw fromNative(e);
  }
}

/** Runs a synchronous native call, rethrowing its error as an McpError. */
function nativeSync(fn) {
  try {
    return fn();
  } catch (e) {
    throw fromNative(e);
  }
}

module.exports = {
  isRpcError,
  ErrorCode,
  McpError,
  RequestTimeout,
  RequestCancelled,
  ConnectionClosed,
  ProtocolError,
  TransportError,
  InvalidInput,
  ToolError,
  HttpError,
  InputRequired,
  ResourceNotFound,
  CLASSES,
  AuthError,
  makeError,
  fromNative,
  native,
  nativeSync,
};
