'use strict';
// Protected servers: `server.serveHttp({ auth: {...} })` makes the server an OAuth 2.1 resource
// server (2025-11-25 / 2026-07-28 basic/authorization). The Rust core does the work: every
// request needs `Authorization: Bearer <token>` (401 with `WWW-Authenticate: Bearer
// resource_metadata="..."` otherwise), the Protected Resource Metadata (RFC 9728) is served at
// its well-known paths, tokens are checked by the built-in JWT verifier (`jwksUrl`, `issuer`,
// `audience`) or the host's `verify(token)`, and entries needing scopes the caller lacks are
// hidden (`scopeMode: 'hide'`, refused like unknown ones) or challenged (`'stepUp'`: 403
// insufficient_scope). Handlers read the caller from `ctx.auth`.

const native = require('./native');
const { nativeSync } = require('./errors');

/** The settings passed to the core as they are. */
const SETTING_KEYS = [
  'jwksUrl', 'issuer', 'audience', 'resource', 'authorizationServers', 'scopesSupported',
  'requiredScopes', 'toolScopes', 'promptScopes', 'resourceScopes', 'scopeMode', 'leewaySeconds',
  'metadata', 'visibility', 'dpop', 'dpopNonce',
];

const REFUSALS = ['invalid_token', 'insufficient_scope', 'unavailable'];

/**
 * Thrown by a `verify` function to refuse a token: kind 'invalid_token' (401, the default),
 * 'insufficient_scope' (403, naming `scopes`) or 'unavailable' (503: could not decide).
 * `message` goes to the client as `error_description`.
 */
class TokenRefused extends Error {
  constructor(message = 'the token was refused', { kind = 'invalid_token', scopes = [] } = {}) {
    if (!REFUSALS.includes(kind)) throw new TypeError(`kind must be one of ${REFUSALS.join(', ')}, not ${kind}`);
    super(message);
    this.name = 'TokenRefused';
    this.kind = kind;
    this.scopes = [...scopes];
  }
}

const refusal = (kind, description, scopes = []) => JSON.stringify({ refusal: { kind, description, scopes } });

/** The host's verify(token) as the core calls it: async, answering verdict JSON, never throwing. */
function wrapVerify(verify) {
  return async (token) => {
    let out;
    try {
      out = await verify(token);
    } catch (e) {
      if (e instanceof TokenRefused) return refusal(e.kind, e.message, e.scopes);
      throw e; // the core answers 503: the verifier failed
    }
    if (out == null) return refusal('invalid_token', 'the token was refused');
    if (typeof out !== 'object') throw new TypeError('verify must resolve to an identity object or null');
    return JSON.stringify({
      identity: {
        subject: out.subject ?? null,
        clientId: out.clientId ?? null,
        scopes: [...(out.scopes ?? [])],
        claims: out.claims ?? {},
      },
    });
  };
}

/** The native settings of `serveHttp({ auth })` (a plain object, see index.d.ts's `Auth`). */
function serverAuth(auth) {
  if (auth == null || typeof auth !== 'object') throw new TypeError('auth must be an object');
  const settings = {};
  for (const k of SETTING_KEYS) if (auth[k] !== undefined) settings[k] = auth[k];
  if (auth.verify !== undefined && typeof auth.verify !== 'function') {
    throw new TypeError('auth.verify must be a function (token) => identity | null');
  }
  const verify = auth.verify && wrapVerify(auth.verify);
  return nativeSync(() => new native.ServerAuth(JSON.stringify(settings), verify ?? undefined));
}

/** `ctx.auth`: the identity JSON of the native call as an object (undefined without auth). */
function identity(text) {
  if (text == null) return undefined;
  const v = JSON.parse(text);
  return { subject: v.subject ?? undefined, clientId: v.clientId ?? undefined, scopes: v.scopes ?? [], claims: v.claims ?? {} };
}

module.exports = { TokenRefused, serverAuth, identity };
