#!/usr/bin/env node
// A real authorization server for the resource-server tests (tests/rust/auth_server.rs):
// oauth2-mock-server (npm, pinned in package.json) serving its OpenID metadata and JWKS and
// signing RS256 JWTs, driven by the test over stdin so each test gets exactly the token it
// needs. Listens on 127.0.0.1 (a free port); prints `READY <issuer>`, then answers each stdin
// line (a JSON command) with one stdout line (JSON):
//
//   {"cmd":"token", "scope":"a b", "aud":"http://…/mcp", "expires_in":3600, "iss":"…",
//    "sub":"…", "kid":"…", "signer":"foreign",
//    "claims":{…}}                                    -> {"token":"<jwt>"}
//       claims: more payload claims (groups, role, …).
//       signer "foreign" signs with a key the JWKS does not hold, under `kid` (default: the
//       current kid, so the signature is bad) — a made-up kid gives an unknown key.
//   {"cmd":"rotate"}                                  -> {"kid":"<new kid>"}
//       adds a new signing key to the JWKS; later tokens use it.
//   {"cmd":"rekey"}                                   -> {"kid":"<the same kid>"}
//       replaces the current signing key with a new one under the same kid.
//
// The package's /introspect answers `{active:true}` for anything and reads only JSON bodies,
// so this server answers RFC 7662 introspection itself (form body, HTTP Basic credentials
// `rs`/`rs-secret` required): the claims of a token it issued, `{active:false}` otherwise.
// Exits when stdin closes (the test went away).
import http from 'node:http';
import readline from 'node:readline';
import { OAuth2Issuer, OAuth2Service } from 'oauth2-mock-server';

const issuer = new OAuth2Issuer();
let kid = (await issuer.keys.generate('RS256')).kid;
const foreign = new OAuth2Issuer();
const issued = new Map(); // token -> claims

const service = new OAuth2Service(issuer);
const app = service.requestHandler;

const introspect = (req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const auth = req.headers.authorization ?? '';
    const ok = auth === `Basic ${Buffer.from('rs:rs-secret').toString('base64')}`;
    res.setHeader('content-type', 'application/json');
    if (!ok || !(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      res.statusCode = 401;
      res.end(JSON.stringify({ error: 'invalid_client' }));
      return;
    }
    const token = new URLSearchParams(body).get('token');
    const claims = issued.get(token);
    const now = Math.floor(Date.now() / 1000);
    const active = claims !== undefined && claims.exp > now;
    res.end(JSON.stringify(active ? { active: true, ...claims } : { active: false }));
  });
};

const server = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url.split('?')[0] === '/introspect') return introspect(req, res);
  app(req, res);
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
issuer.url = `http://127.0.0.1:${server.address().port}`;
foreign.url = issuer.url;

const token = async (c) => {
  const transform = (header, payload) => {
    if (c.scope !== undefined) payload.scope = c.scope;
    if (c.aud !== undefined) payload.aud = c.aud;
    if (c.iss !== undefined) payload.iss = c.iss;
    payload.sub = c.sub ?? 'user-1';
    payload.client_id = c.client_id ?? 'test-client';
    if (c.header_kid !== undefined) header.kid = c.header_kid;
    if (c.claims !== undefined) Object.assign(payload, c.claims);
  };
  const opts = { scopesOrTransform: transform, expiresIn: c.expires_in ?? 3600 };
  let jwt;
  if (c.signer === 'foreign') {
    const fkid = c.kid ?? kid;
    if (!foreign.keys.get(fkid)) await foreign.keys.generate('RS256', { kid: fkid });
    jwt = await foreign.buildToken({ ...opts, kid: fkid });
  } else {
    jwt = await issuer.buildToken({ ...opts, kid: c.kid ?? kid });
  }
  const payload = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
  issued.set(jwt, payload);
  return { token: jwt };
};

process.stdout.write(`READY ${issuer.url}\n`);
const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  let out;
  try {
    if (c.cmd === 'token') out = await token(c);
    else if (c.cmd === 'rotate') {
      kid = (await issuer.keys.generate('RS256')).kid;
      out = { kid };
    } else if (c.cmd === 'rekey') {
      await issuer.keys.generate('RS256', { kid }); // the key store replaces a key of the same kid
      out = { kid };
    } else out = { error: `unknown command ${c.cmd}` };
  } catch (e) {
    out = { error: String(e) };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
server.close();
process.exit(0);
