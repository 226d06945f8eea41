// Protected servers from Node: `server.serveHttp({ auth })` against a real authorization server
// (oauth2-mock-server from npm, driven by tests/interop/oauth/issuer.mjs over stdin to mint the
// tokens each test needs): the 401 challenge and the PRM, the per-identity catalogue (`add`
// needs `mcp:add`: hidden and refused like an unknown tool without it), `ctx.auth` in
// handlers, a host `verify` function and its refusal, and examples/node/echo_server.mjs with
// `--auth-*` (tests/interop/oauth and examples/node must be `npm ci`ed).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import readline from 'node:readline';
import path from 'node:path';
import { Client, McpError, Server, TokenRefused } from '../lib/mcpcore.js';
import { examples, repo, run, spawnListening } from './helpers.mjs';

const node = process.execPath;

/** tests/interop/oauth/issuer.mjs: one JSON command per stdin line, one answer per line. */
class Issuer {
  static async start() {
    const i = new Issuer();
    i.child = spawn(node, [path.join(repo, 'tests', 'interop', 'oauth', 'issuer.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
    i.lines = readline.createInterface({ input: i.child.stdout })[Symbol.asyncIterator]();
    const first = (await i.lines.next()).value ?? '';
    assert.match(first, /^READY /, 'issuer.mjs did not start (npm ci in tests/interop/oauth?)');
    i.url = first.slice('READY '.length).trim();
    i.jwks = `${i.url}/jwks`;
    return i;
  }
  async token(aud, scope = '', extra = {}) {
    this.child.stdin.write(JSON.stringify({ cmd: 'token', aud, scope, ...extra }) + '\n');
    const answer = JSON.parse((await this.lines.next()).value);
    assert.ok(answer.token, JSON.stringify(answer));
    return answer.token;
  }
  stop() {
    return new Promise((r) => {
      this.child.once('exit', r);
      this.child.stdin.end(); // it exits when stdin closes
    });
  }
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** A raw tools/list POST, for the HTTP answers. */
async function post(url, token) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) });
  const text = await r.text();
  return { status: r.status, challenge: r.headers.get('www-authenticate'), body: text ? JSON.parse(text) : null };
}

function protectedServer() {
  const server = new Server({ name: 'protected-node', version: '0.1.0' });
  const obj = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } };
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => text);
  server.tool('add', { inputSchema: obj }, ({ a, b }) => ({ sum: a + b }));
  server.tool('whoami', {}, (_args, ctx) => ({
    subject: ctx.auth?.subject ?? null,
    clientId: ctx.auth?.clientId ?? null,
    scopes: ctx.auth?.scopes ?? null,
    iss: ctx.auth?.claims.iss ?? null,
  }));
  return server;
}

const names = async (c) => new Set((await c.listTools()).map((t) => t.name));

/** The example contract: 401 + PRM without a token, echo for any valid token, add only with mcp:add. */
async function checkContract(url, issuer) {
  const none = await post(url);
  assert.equal(none.status, 401);
  const prmUrl = url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp');
  assert.ok(none.challenge.startsWith('Bearer ') && none.challenge.includes(`resource_metadata="${prmUrl}"`), none.challenge);
  const prm = await (await fetch(prmUrl)).json();
  assert.equal(prm.resource, url);
  assert.deepEqual(prm.authorization_servers, [issuer.url]);
  assert.ok(prm.scopes_supported.includes('mcp:add'), JSON.stringify(prm));

  const junk = await post(url, 'not-a-jwt');
  assert.equal(junk.status, 401);
  assert.equal(junk.body.error, 'invalid_token');
  const otherAud = await post(url, await issuer.token('http://127.0.0.1:1/other', 'mcp:add'));
  assert.equal(otherAud.status, 401);

  for (const lineage of ['modern', 'legacy']) {
    const plain = await Client.connectHttp(url, { lineage, bearerToken: await issuer.token(url, '') });
    try {
      const seen = await names(plain);
      assert.ok(seen.has('echo') && !seen.has('add'), [...seen].join());
      const echoed = await plain.callTool('echo', { text: 'hi' });
      assert.equal(echoed.content[0].text, 'hi');
      const hidden = await plain.callTool('add', { a: 1, b: 2 }).then(() => null, (e) => e);
      const unknown = await plain.callTool('nope', { a: 1, b: 2 }).then(() => null, (e) => e);
      assert.ok(hidden instanceof McpError && unknown instanceof McpError, `${hidden} / ${unknown}`);
      assert.equal(hidden.code, -32602);
      assert.equal(hidden.code, unknown.code);
      assert.equal(hidden.message.replace('add', 'nope'), unknown.message);
    } finally {
      await plain.close();
    }
    const scoped = await Client.connectHttp(url, { lineage, bearerToken: await issuer.token(url, 'mcp:add') });
    try {
      assert.ok((await names(scoped)).has('add'));
      const sum = await scoped.callTool('add', { a: 2, b: 3 });
      assert.deepEqual(sum.structuredContent ?? JSON.parse(sum.content[0].text), { sum: 5 });
    } finally {
      await scoped.close();
    }
  }
}

describe('protected servers (serveHttp({ auth }))', () => {
  let issuer;
  before(async () => {
    issuer = await Issuer.start();
  });
  after(() => issuer?.stop());

  test('JWT: per-identity catalogue, and ctx.auth in handlers', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const serving = await protectedServer().serveHttp({
      port,
      auth: { jwksUrl: issuer.jwks, issuer: issuer.url, audience: url, toolScopes: { add: ['mcp:add'] } },
    });
    try {
      assert.equal(serving.url, url);
      await checkContract(url, issuer);
      const token = await issuer.token(url, 'mcp:add profile', { sub: 'alice', client_id: 'app-7' });
      const c = await Client.connectHttp(url, { bearerToken: token });
      try {
        const who = (await c.callTool('whoami', {})).structuredContent;
        assert.deepEqual({ ...who, scopes: [...who.scopes].sort() }, { subject: 'alice', clientId: 'app-7', scopes: ['mcp:add', 'profile'], iss: issuer.url });
      } finally {
        await c.close();
      }
    } finally {
      await serving.shutdown();
    }
  });

  test('a host verify function decides; its refusal is a 401', async () => {
    const seen = [];
    const verify = async (token) => {
      seen.push(token);
      if (token === 'ops-token') return { subject: 'ops', clientId: 'cli', scopes: ['mcp:add'], claims: { team: 'sre' } };
      if (token === 'guest-token') return { subject: 'guest' };
      if (token === 'down') throw new TokenRefused('directory unreachable', { kind: 'unavailable' });
      if (token === 'revoked') throw new TokenRefused('revoked at 12:00');
      if (token === 'boom') throw new Error('the directory crashed');
      return null;
    };
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const serving = await protectedServer().serveHttp({
      port,
      auth: { verify, resource: url, authorizationServers: ['https://as.example'], toolScopes: { add: ['mcp:add'] } },
    });
    try {
      const revoked = await post(url, 'revoked');
      assert.equal(revoked.status, 401);
      assert.deepEqual(revoked.body, { error: 'invalid_token', error_description: 'revoked at 12:00' });
      assert.ok(revoked.challenge.includes('error="invalid_token"') && revoked.challenge.includes('resource_metadata='), revoked.challenge);
      assert.equal((await post(url, 'who-knows')).status, 401);
      const down = await post(url, 'down');
      assert.equal(down.status, 503);
      assert.equal(down.body.error_description, 'directory unreachable');
      const boom = await post(url, 'boom');
      assert.equal(boom.status, 503);
      assert.match(boom.body.error_description, /the directory crashed/);
      await assert.rejects(Client.connectHttp(url, { bearerToken: 'who-knows' }), (e) => e.httpStatus === 401);

      const guest = await Client.connectHttp(url, { bearerToken: 'guest-token' });
      try {
        assert.ok(!(await names(guest)).has('add'));
        assert.deepEqual((await guest.callTool('whoami', {})).structuredContent, { subject: 'guest', clientId: null, scopes: [], iss: null });
      } finally {
        await guest.close();
      }
      const ops = await Client.connectHttp(url, { bearerToken: 'ops-token' });
      try {
        assert.deepEqual((await ops.callTool('add', { a: 1, b: 2 })).structuredContent, { sum: 3 });
        const who = (await ops.callTool('whoami', {})).structuredContent;
        assert.deepEqual([who.subject, who.clientId], ['ops', 'cli']);
      } finally {
        await ops.close();
      }
      for (const t of ['revoked', 'who-knows', 'down', 'guest-token', 'ops-token']) assert.ok(seen.includes(t), t);
    } finally {
      await serving.shutdown();
    }
  });

  test('dpop: the PRM lists the proof algorithms and a DPoP-bound token is never a bearer token', async () => {
    // The proof checks themselves are the core's (tests/rust/auth_dpop.rs); this is the setting
    // reaching it from Node.
    const verify = (token) => {
      if (token === 'bound') return { subject: 'alice', claims: { cnf: { jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I' } } };
      return token === 'plain' ? { subject: 'bob' } : null;
    };
    const s = protectedServer();
    await assert.rejects(
      s.serveHttp({ auth: { verify, resource: 'http://x/mcp', authorizationServers: ['https://as'], dpop: 'on' } }),
      /dpop must be 'off', 'allowed' or 'required'/,
    );
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const serving = await s.serveHttp({ port, auth: { verify, resource: url, authorizationServers: ['https://as.example'], dpop: 'required' } });
    try {
      const prm = await (await fetch(url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp'))).json();
      assert.equal(prm.dpop_signing_alg_values_supported[0], 'ES256', JSON.stringify(prm));
      assert.equal(prm.dpop_bound_access_tokens_required, true);
      // Required: a bearer token, bound or not, gets a DPoP challenge.
      for (const token of ['bound', 'plain']) {
        const r = await post(url, token);
        assert.equal(r.status, 401);
        assert.equal(r.body.error, 'invalid_token');
        assert.ok(r.challenge.startsWith('DPoP ') && r.challenge.includes('algs="ES256'), r.challenge);
      }
    } finally {
      await serving.shutdown();
    }
  });

  test('bad auth settings are refused', async () => {
    const s = protectedServer();
    await assert.rejects(s.serveHttp({ auth: { verify: () => null, authorizationServers: ['https://as'] } }), /resource/);
    await assert.rejects(s.serveHttp({ auth: { issuer: 'https://as', audience: 'http://127.0.0.1:1/mcp' } }), /jwksUrl/);
    await assert.rejects(s.serveHttp({ auth: { verify: 'no' } }), TypeError);
    assert.throws(() => new TokenRefused('x', { kind: 'nope' }), TypeError);
  });

  test('examples/node/echo_server.mjs with --auth-*', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const server = path.join(examples, 'echo_server.mjs');
    const srv = await spawnListening(node, [server, '--http', `127.0.0.1:${port}`, '--auth-jwks', issuer.jwks, '--auth-issuer', issuer.url, '--auth-audience', url]);
    try {
      assert.equal(srv.url, url);
      await checkContract(url, issuer);
    } finally {
      await srv.stop();
    }
    const half = await run(node, [server, '--http', '127.0.0.1:0', '--auth-jwks', issuer.jwks]);
    assert.notEqual(half.code, 0);
    assert.match(half.stderr, /go together/);
  });

  // 2025-11-25 basic/authorization: stdio servers take credentials from the environment.
  test('examples/node/echo_server.mjs on stdio reads MCP_ACCESS_TOKEN', async () => {
    const aud = 'https://mcp.example/stdio';
    const argv = [node, path.join(examples, 'echo_server.mjs'), '--auth-jwks', issuer.jwks, '--auth-issuer', issuer.url, '--auth-audience', aud];
    for (const lineage of ['modern', 'legacy']) {
      const reader = await Client.connectStdio(argv, { env: { MCP_ACCESS_TOKEN: await issuer.token(aud, 'mcp:read') }, lineage });
      try {
        assert.deepEqual((await reader.listTools()).map((t) => t.name), ['echo'], lineage);
        await assert.rejects(reader.callTool('add', { a: 1, b: 2 }), /Unknown tool/);
        assert.equal((await reader.callTool('echo', { text: 'from the environment' })).content[0].text, 'from the environment');
      } finally {
        await reader.close();
      }
      const adder = await Client.connectStdio(argv, { env: { MCP_ACCESS_TOKEN: await issuer.token(aud, 'mcp:read mcp:add') }, lineage });
      try {
        assert.deepEqual((await adder.listTools()).map((t) => t.name).sort(), ['add', 'echo'], lineage);
        assert.deepEqual((await adder.callTool('add', { a: 2, b: 3 })).structuredContent, { sum: 5 });
      } finally {
        await adder.close();
      }
    }
    for (const [token, why] of [[undefined, /MCP_ACCESS_TOKEN/], ['not-a-jwt', /invalid_token/]]) {
      const env = { ...process.env };
      delete env.MCP_ACCESS_TOKEN;
      if (token !== undefined) env.MCP_ACCESS_TOKEN = token;
      const ran = await run(argv[0], argv.slice(1), { env, input: '' });
      assert.equal(ran.code, 1, ran.stderr);
      assert.match(ran.stderr, why);
    }
  });

  test('visibility rules: tools shown per caller by scope and claim, hidden ones refused like unknown', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const serving = await protectedServer().serveHttp({
      port,
      auth: {
        jwksUrl: issuer.jwks, issuer: issuer.url, audience: url,
        visibility: [
          { tools: ['add'], allow: { scopes: ['mcp:add'], claims: { groups: 'finance' } } },
          { tools: ['who*'], deny: { claims: { role: 'guest' } } },
        ],
      },
    });
    try {
      const guest = await Client.connectHttp(url, { bearerToken: await issuer.token(url, 'mcp:add', { claims: { role: 'guest' } }) });
      try {
        assert.deepEqual(await names(guest), new Set(['echo']));
        const hidden = await guest.callTool('whoami', {}).then(() => null, (e) => e);
        assert.ok(hidden instanceof McpError && hidden.code === -32602, String(hidden));
      } finally {
        await guest.close();
      }
      const finance = await Client.connectHttp(url, { bearerToken: await issuer.token(url, 'mcp:add', { claims: { groups: ['finance'] } }) });
      try {
        assert.deepEqual(await names(finance), new Set(['echo', 'add', 'whoami']));
      } finally {
        await finance.close();
      }
    } finally {
      await serving.shutdown();
    }
    await assert.rejects(
      protectedServer().serveHttp({ port, auth: { jwksUrl: issuer.jwks, issuer: issuer.url, audience: url, visibility: [{ tools: ['a'] }] } }),
      /visibility\[0\]: give exactly one/,
    );
  });

  test('a gateway config with auth says where the auth goes', async () => {
    const { Gateway } = await import('../lib/mcpcore.js');
    const config = { mcpServers: { echo: { command: 'true' } }, auth: { jwksUrl: 'http://127.0.0.1:9/jwks', issuer: 'http://127.0.0.1:9', resource: 'http://127.0.0.1:8/mcp' } };
    await assert.rejects(new Gateway(config).start(), /serveHttp\(\{ auth/);
  });
});
