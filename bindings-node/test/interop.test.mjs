// Interop with the official TypeScript SDK v2 (tests/interop/ts, `npm ci` there): its client
// calls JS tools served by mcpcore over HTTP, and our client calls its server.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '../lib/mcpcore.js';
import { examples, repo, run, spawnListening, textOf } from './helpers.mjs';

const ts = path.join(repo, 'tests', 'interop', 'ts');
const node = process.execPath;

describe('TypeScript SDK v2 interop', () => {
  before(() => {
    assert.ok(existsSync(path.join(ts, 'node_modules', '@modelcontextprotocol', 'client')), 'run npm ci in tests/interop/ts');
  });

  for (const lineage of ['auto', 'modern', 'legacy']) {
    test(`the SDK client (${lineage}) calls JS tools served by mcpcore`, async () => {
      const srv = await spawnListening(node, [path.join(examples, 'echo_server.mjs'), '--http', '127.0.0.1:0']);
      try {
        const out = await run(node, [path.join(ts, 'sdk_client.mjs'), '--lineage', lineage, '--text', 'from the sdk', srv.url]);
        assert.equal(out.code, 0, out.stderr);
        const line = JSON.parse(out.stdout.trim());
        assert.equal(line.lineage, lineage === 'legacy' ? 'legacy' : 'modern');
        assert.deepEqual(line.tools, ['add', 'echo']);
        assert.equal(line.echo, 'from the sdk');
        assert.deepEqual(line.add, { sum: 5 });
      } finally {
        await srv.stop();
      }
    });
  }

  for (const [flag, lineage, version] of [
    [[], undefined, '2026-07-28'],
    [['--legacy-only'], 'legacy', '2025-11-25'],
    [['--stateful-legacy'], 'legacy', '2025-11-25'],
    [['--sse-response'], 'modern', '2026-07-28'],
  ]) {
    test(`our client calls the SDK server ${flag.join(' ') || '(default)'}`, async () => {
      const srv = await spawnListening(node, [path.join(ts, 'sdk_server.mjs'), '--port', '0', ...flag]);
      try {
        const c = await Client.connectHttp(srv.url, lineage ? { lineage } : {});
        assert.equal(c.protocolVersion, version);
        const names = (await c.listTools()).map((t) => t.name).sort();
        assert.deepEqual(names, ['add', 'echo']);
        assert.equal(textOf(await c.callTool('echo', { text: 'to the sdk' })), 'to the sdk');
        assert.deepEqual((await c.callTool('add', { a: 2, b: 3 })).structuredContent, { sum: 5 });
        await c.close();
      } finally {
        await srv.stop();
      }
    });
  }
});
