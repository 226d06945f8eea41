// OAuth from Node: `Client.connectHttp(url, { auth: new OAuth({...}) })` against a real
// authorization server (oauth2-mock-server from npm, tests/interop/oauth/mock_as.mjs) in front of
// the official Python SDK's protected server (tests/interop/python/sdk_auth_server.py: JWTs
// checked against the AS's JWKS, audience, scopes), and in front of a protected server written
// with the Node API. The user step is a scripted Promise hook; tokens go to a host-written async
// store.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { AuthError, Client, InvalidInput, MemoryTokenStore, OAuth, Server } from '../lib/mcpcore.js';
import net from 'node:net';
import { repo, spawnListening, textOf } from './helpers.mjs';

const interop = path.join(repo, 'tests', 'interop');
const python = process.env.MCPCORE_PYTHON ?? path.join(repo, '.venv', 'bin', 'python');
const REDIRECT_URI = 'http://127.0.0.1:9/callback'; // nothing listens: the hook reads the redirect

/** What a browser would be sent to: the authorization endpoint's redirect (the mock approves). */
async function location(url) {
  const r = await fetch(url, { redirect: 'manual' });
  assert.equal(r.status, 302);
  return r.headers.get('location');
}

/** A free loopback port (the audience is the server's URL, known before it binds). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** A host token store with async methods, recording what it is asked. */
class AsyncStore {
  constructor() {
    this.inner = new MemoryTokenStore();
    this.calls = [];
  }
  async loadTokens(server) { this.calls.push(['loadTokens', server]); return this.inner.loadTokens(server); }
  async saveTokens(server, t) { this.calls.push(['saveTokens', server]); this.inner.saveTokens(server, t); }
  async loadClient(issuer) { return this.inner.loadClient(issuer); }
  async saveClient(issuer, c) { this.inner.saveClient(issuer, c); }
}

describe('OAuth', () => {
  let as, server;
  const events = [];
  before(async () => {
    assert.ok(existsSync(path.join(interop, 'oauth', 'node_modules', 'oauth2-mock-server')), 'run npm ci in tests/interop/oauth');
    assert.ok(existsSync(python), `${python} is missing: create the venv (scripts/test.sh)`);
    as = await spawnListening(process.execPath, [path.join(interop, 'oauth', 'mock_as.mjs')]);
    let buf = '';
    as.child.stdout.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('EVENT ')) events.push(JSON.parse(line.slice(6)));
      }
    });
    server = await spawnListening(python, [path.join(interop, 'python', 'sdk_auth_server.py'), '--issuer', as.url, '--scope', 'mcp:read'], { timeoutMs: 60000 });
  });
  after(async () => {
    await server?.stop();
    await as?.stop();
  });
  const authorizations = () => events.filter((e) => e.event === 'authorize');

  test('the flow with a Promise hook and an async store, then a restart from the store', async () => {
    const seen = [];
    const onAuthorize = async (url) => { seen.push(url); return location(url); };
    const store = new AsyncStore();
    const before = authorizations().length;
    const auth = new OAuth({ onAuthorize, redirectUri: REDIRECT_URI, clientId: 'node-tests', store });
    const client = await Client.connectHttp(server.url, { auth });
    try {
      assert.equal(textOf(await client.callTool('echo', { text: 'authorized' })), 'authorized');
    } finally {
      await client.close();
    }
    assert.equal(seen.length, 1);
    assert.match(seen[0], /code_challenge_method=S256/);
    const mine = authorizations().slice(before);
    assert.deepEqual(mine.map((a) => [a.client_id, a.scope, a.resource]), [['node-tests', 'mcp:read', server.url]]);
    const saved = store.inner.tokens.get(server.url);
    assert.equal(saved.issuer, as.url);
    assert.equal(saved.token_type, 'Bearer');
    assert.ok(saved.refresh_token);
    assert.ok(store.calls.some(([m, k]) => m === 'saveTokens' && k === server.url));
    assert.equal((await auth.tokens(server.url)).access_token, saved.access_token);

    const again = new OAuth({ onAuthorize, redirectUri: REDIRECT_URI, clientId: 'node-tests', store });
    const second = await Client.connectHttp(server.url, { auth: again, lineage: 'legacy' });
    try {
      assert.equal(textOf(await second.callTool('echo', { text: 'again' })), 'again');
    } finally {
      await second.close();
    }
    assert.equal(seen.length, 1, 'the stored token served the restart');
  });

  test('both halves in Node: the flow against a protected server written with the Node API', async () => {
    const srv = new Server({ name: 'protected-by-node', version: '0.1.0' });
    srv.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } }, ({ a, b }) => ({ sum: a + b }));
    srv.tool('whoami', {}, (_args, ctx) => String(ctx.auth.subject));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const serving = await srv.serveHttp({
      port,
      auth: { jwksUrl: `${as.url}/jwks`, issuer: as.url, audience: url, toolScopes: { add: ['mcp:add'] }, scopesSupported: ['mcp:add'] },
    });
    const seen = [];
    const onAuthorize = async (u) => { seen.push(u); return location(u); };
    const client = await Client.connectHttp(url, { auth: new OAuth({ onAuthorize, redirectUri: REDIRECT_URI, clientId: 'node-both-halves' }) });
    try {
      assert.deepEqual((await client.listTools()).map((t) => t.name).sort(), ['add', 'whoami']);
      assert.deepEqual((await client.callTool('add', { a: 2, b: 3 })).structuredContent, { sum: 5 });
      assert.ok(textOf(await client.callTool('whoami')), 'the token names a subject');
    } finally {
      await client.close();
      await serving.shutdown();
    }
    assert.equal(seen.length, 1);
    assert.match(seen[0], /scope=mcp%3Aadd/);
  });

  test('failures are typed AuthErrors', async () => {
    await assert.rejects(Client.connectHttp(server.url), (e) => {
      assert.ok(e instanceof AuthError, String(e));
      assert.equal(e.kind, 'auth');
      assert.equal(e.httpStatus, 401);
      assert.equal(e.error, 'invalid_token');
      return true;
    });
    const givesUp = new OAuth({ onAuthorize: () => { throw new Error('the user closed the window'); }, redirectUri: REDIRECT_URI, clientId: 'node-tests' });
    await assert.rejects(Client.connectHttp(server.url, { auth: givesUp }), (e) => {
      assert.ok(e instanceof AuthError);
      assert.equal(e.error, 'interaction_failed');
      assert.match(e.errorDescription, /the user closed the window/);
      return true;
    });
    const forged = new OAuth({ onAuthorize: () => `${REDIRECT_URI}?code=x&state=not-ours`, redirectUri: REDIRECT_URI, clientId: 'node-tests' });
    await assert.rejects(Client.connectHttp(server.url, { auth: forged }), (e) => e instanceof AuthError && e.error === 'state_mismatch');
  });

  test('bad configuration is refused', () => {
    assert.throws(() => new OAuth({ onAuthorize: (u) => u }), InvalidInput);
    assert.throws(() => new OAuth({ grant: 'jwt_bearer' }), InvalidInput);
    assert.throws(() => new OAuth({ store: {} }), TypeError);
  });
});
