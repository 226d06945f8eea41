// HTTPS from Node: serveHttp({ tlsCertFile, tlsKeyFile }) and connectHttp(url, { caFile }) in both
// lineages; mutual TLS with tlsClientCaFile and clientCert/clientKey; the refusals. The test CA
// is made by the test itself with the openssl command.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Server, Client, InvalidInput, TransportError } from '../lib/mcpcore.js';
import { textOf } from './helpers.mjs';

/** A CA, a server certificate for 127.0.0.1/localhost and a client certificate, as files. */
function makePki() {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpcore-node-pki-'));
  const f = (n) => path.join(dir, n);
  const ssl = (...args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', '/CN=mcpcore node test CA', '-keyout', f('ca.key'), '-out', f('ca.pem'),
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  const leaf = (name, cn, san) => {
    writeFileSync(f(`${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\n`);
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${cn}`,
      '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`));
    ssl('x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial',
      '-days', '2', '-extfile', f(`${name}.ext`), '-out', f(`${name}.pem`));
  };
  leaf('server', 'mcpcore node test server', 'IP:127.0.0.1,DNS:localhost');
  leaf('client', 'mcpcore node test client', 'DNS:client.test');
  return { dir, f };
}

function makeServer() {
  const server = new Server({ name: 'tls', version: '1.0' });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => text);
  return server;
}

describe('HTTPS', () => {
  let pki;
  before(() => { pki = makePki(); });
  after(() => rmSync(pki.dir, { recursive: true, force: true }));

  test('both lineages over TLS with the test CA; without it, a TransportError', async () => {
    const s = await makeServer().serveHttp({ tlsCertFile: pki.f('server.pem'), tlsKeyFile: pki.f('server.key') });
    try {
      assert.match(s.url, /^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
      for (const [lineage, version] of [['modern', '2026-07-28'], ['legacy', '2025-11-25']]) {
        const c = await Client.connectHttp(s.url, { lineage, caFile: pki.f('ca.pem') });
        assert.equal(c.protocolVersion, version);
        assert.equal(textOf(await c.callTool('echo', { text: 'tls' })), 'tls');
        await c.close();
      }
      await assert.rejects(Client.connectHttp(s.url, { timeoutMs: 10000 }), (e) => e instanceof TransportError && /certificate/i.test(e.message));
    } finally {
      await s.shutdown();
    }
  });

  test('mutual TLS', async () => {
    const s = await makeServer().serveHttp({
      tlsCertFile: pki.f('server.pem'), tlsKeyFile: pki.f('server.key'), tlsClientCaFile: pki.f('ca.pem'),
    });
    try {
      const c = await Client.connectHttp(s.url, { caFile: pki.f('ca.pem'), clientCert: pki.f('client.pem'), clientKey: pki.f('client.key') });
      assert.equal(textOf(await c.callTool('echo', { text: 'mutual' })), 'mutual');
      await c.close();
      await assert.rejects(Client.connectHttp(s.url, { caFile: pki.f('ca.pem'), timeoutMs: 10000 }), TransportError);
    } finally {
      await s.shutdown();
    }
  });

  test('bad TLS options name what is wrong', async () => {
    const server = makeServer();
    await assert.rejects(server.serveHttp({ tlsCertFile: pki.f('server.pem') }), /tlsCertFile and tlsKeyFile go together/);
    await assert.rejects(server.serveHttp({ tlsCertFile: pki.f('nope.pem'), tlsKeyFile: pki.f('server.key') }), /nope\.pem/);
    await assert.rejects(Client.connectHttp('https://127.0.0.1:1/mcp', { clientCert: pki.f('client.pem') }), InvalidInput);
  });
});
