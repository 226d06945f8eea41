'use strict';
// OAuth 2.1 for `Client.connectHttp(url, { auth: new OAuth({...}) })`. The Rust core runs the
// whole dance when the server answers 401 (or 403 insufficient_scope): discovery, registration,
// the authorization code grant with PKCE, refresh, step-up, DPoP. The host provides the user
// step, `onAuthorize(url) => redirect URL` (a Promise or a value; without it a 127.0.0.1
// loopback listener opens the browser), and optionally a token store with async `loadTokens`,
// `saveTokens`, `loadClient`, `saveClient` (records are plain objects; treat them as secrets).
// Failures reject with `AuthError` (`error`, `errorDescription`, `httpStatus`).

const native = require('./native');
const { nativeSync, native: awaitNative } = require('./errors');

const STORE_METHODS = ['loadTokens', 'saveTokens', 'loadClient', 'saveClient'];

/** The configuration keys passed to the core as they are. */
const CONFIG_KEYS = [
  'grant', 'clientId', 'clientSecret', 'privateKeyPem', 'signingAlgorithm', 'issuer', 'assertion',
  'scopes', 'clientMetadataUrl', 'clientName', 'offlineAccess', 'dpop', 'maxAuthorizations',
  'redirectUri', 'storePath',
];

class OAuth {
  constructor(options = {}) {
    const config = {};
    for (const k of CONFIG_KEYS) if (options[k] !== undefined) config[k] = options[k];
    const { onAuthorize, store } = options;
    if (onAuthorize !== undefined && typeof onAuthorize !== 'function') {
      throw new TypeError('onAuthorize must be a function (url) => redirect URL');
    }
    if (store !== undefined) {
      for (const m of STORE_METHODS) {
        if (typeof store[m] !== 'function') throw new TypeError(`the token store has no ${m} method`);
      }
    }
    // Async wrappers: a synchronous throw becomes a rejection, never an uncaught exception.
    const authorize = onAuthorize && (async (url) => {
      const redirect = await onAuthorize(url);
      if (typeof redirect !== 'string') throw new TypeError('onAuthorize must resolve to the redirect URL');
      return redirect;
    });
    const storeCall = store && (async (method, key, record) => {
      const out = await store[method](key, record == null ? null : JSON.parse(record));
      return JSON.stringify(out ?? null);
    });
    this._native = nativeSync(() => new native.OAuth(JSON.stringify(config), authorize ?? undefined, storeCall ?? undefined));
  }

  /** The tokens held for the MCP server at `url`, or undefined. */
  async tokens(url) {
    const t = await awaitNative(this._native.tokens(url));
    return t == null ? undefined : JSON.parse(t);
  }

  /** Forgets the tokens for the MCP server at `url` (registrations stay). */
  forget(url) {
    return awaitNative(this._native.forget(url));
  }
}

/** An in-memory token store (the default); handy to inspect. */
class MemoryTokenStore {
  constructor() {
    this.tokens = new Map();
    this.clients = new Map();
  }
  loadTokens(server) { return this.tokens.get(server) ?? null; }
  saveTokens(server, tokens) { if (tokens == null) this.tokens.delete(server); else this.tokens.set(server, tokens); }
  loadClient(issuer) { return this.clients.get(issuer) ?? null; }
  saveClient(issuer, client) { if (client == null) this.clients.delete(issuer); else this.clients.set(issuer, client); }
}

module.exports = { OAuth, MemoryTokenStore };
