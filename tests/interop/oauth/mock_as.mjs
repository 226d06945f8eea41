#!/usr/bin/env node
// A real OAuth 2 authorization server for the interop tests: oauth2-mock-server (npm, pinned in
// package.json), which signs RS256 JWT access tokens, serves its JWKS and OpenID metadata, runs
// the authorization code grant with PKCE (approving at once: no user), refresh tokens and client
// credentials. Listens on 127.0.0.1 (a free port); prints one line `READY <issuer>` on stdout,
// then one `EVENT <json>` line per authorization and token request, for the tests to assert on.
//
// What the package leaves to its hooks, done here so tokens look like a real AS's:
// - `aud` is the RFC 8707 `resource` the client asked for (the protected server checks it);
// - `scope` is the scope granted at /authorize (kept per code, then per refresh token).
//
// Options:
//   --first-token-ttl SECONDS   the first access token's JWT expires after SECONDS, while the
//                               token response still says expires_in 3600 (so only the resource
//                               server's 401 can tell the client it expired)
//   --expires-in SECONDS        every access token lives SECONDS (its JWT `exp`, and the token
//                               response's `expires_in`, which may be 0)
import { fstatSync } from 'node:fs';
import { OAuth2Server } from 'oauth2-mock-server';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const firstTtl = opt('--first-token-ttl') ? Number(opt('--first-token-ttl')) : undefined;
const expiresIn = opt('--expires-in') !== undefined ? Number(opt('--expires-in')) : undefined;

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');

const scopeByCode = new Map();
const scopeByRefresh = new Map();
const built = new WeakMap(); // request -> tokens built for it (the access token comes first)
let accessTokens = 0;
const event = (e) => process.stdout.write(`EVENT ${JSON.stringify(e)}\n`);

server.service.on('beforeAuthorizeRedirect', (redirect, req) => {
  const code = redirect.url.searchParams.get('code');
  scopeByCode.set(code, req.query.scope ?? '');
  event({
    event: 'authorize',
    client_id: req.query.client_id,
    scope: req.query.scope ?? null,
    resource: req.query.resource ?? null,
    code_challenge_method: req.query.code_challenge_method ?? null,
  });
});

server.service.on('beforeTokenSigning', (token, req) => {
  const n = (built.get(req) ?? 0) + 1;
  built.set(req, n);
  if (n !== 1) return; // the id_token
  const body = req.body;
  let scope = body.scope;
  if (body.grant_type === 'authorization_code') scope = scopeByCode.get(body.code) ?? '';
  if (body.grant_type === 'refresh_token') scope = scopeByRefresh.get(body.refresh_token) ?? '';
  token.payload.scope = scope;
  if (body.resource) token.payload.aud = body.resource;
  accessTokens += 1;
  if (firstTtl !== undefined && accessTokens === 1) token.payload.exp = token.payload.iat + firstTtl;
  // expires_in 0 says nothing of the JWT's life: it keeps the package's hour then.
  if (expiresIn) token.payload.exp = token.payload.iat + expiresIn;
});

server.service.on('beforeResponse', (response, req) => {
  const body = req.body;
  let scope = body.scope;
  if (body.grant_type === 'authorization_code') scope = scopeByCode.get(body.code) ?? '';
  if (body.grant_type === 'refresh_token') scope = scopeByRefresh.get(body.refresh_token) ?? '';
  if (response.body.refresh_token) scopeByRefresh.set(response.body.refresh_token, scope);
  response.body.scope = scope;
  if (expiresIn !== undefined && response.body.access_token) response.body.expires_in = expiresIn;
  event({
    event: 'token',
    grant_type: body.grant_type,
    client_id: body.client_id ?? null,
    resource: body.resource ?? null,
    scope,
    status: response.statusCode,
  });
});

await server.start(0, '127.0.0.1');
process.stdout.write(`READY ${server.issuer.url}\n`);
const stop = async () => {
  await server.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Exit with the test that started us when it hands us a pipe (it closes when the test goes away).
if (fstatSync(0).isFIFO()) {
  process.stdin.on('end', stop);
  process.stdin.resume();
}
