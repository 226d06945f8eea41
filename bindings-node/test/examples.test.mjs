// The example contract: examples/node/echo_server.mjs and echo_client.mjs, against each other
// and against the Rust examples, over stdio and HTTP (examples/node must be `npm install`ed).
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '../lib/mcpcore.js';
import { examples, rustBin, run, spawnListening, textOf } from './helpers.mjs';

const server = path.join(examples, 'echo_server.mjs');
const client = path.join(examples, 'echo_client.mjs');
const node = process.execPath;

describe('examples/node', () => {
  before(() => {
    assert.ok(existsSync(path.join(examples, 'node_modules', 'mcpcore')), 'run npm install in examples/node');
  });

  test('echo_client -- echo_server (stdio)', async () => {
    const out = await run(node, [client, 'hi there', '--', node, server]);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, 'hi there\nprotocol 2026-07-28\n');
  });

  test('echo_client URL against echo_server --http', async () => {
    const srv = await spawnListening(node, [server, '--http', '127.0.0.1:0']);
    try {
      assert.match(srv.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const out = await run(node, [client, srv.url, 'over http']);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.stdout, 'over http\nprotocol 2026-07-28\n');
      for (const lineage of ['modern', 'legacy']) {
        const c = await Client.connectHttp(srv.url, { lineage });
        const add = await c.callTool('add', { a: 2, b: 3 });
        assert.deepEqual(add.structuredContent, { sum: 5 });
        assert.equal(textOf(add), '{"sum":5}');
        const tools = await c.listTools();
        assert.deepEqual(tools.find((t) => t.name === 'add').outputSchema.required, ['sum']);
        await c.close();
      }
    } finally {
      await srv.stop();
    }
  });

  test('the Rust echo_client against the Node echo_server, and the reverse', async () => {
    const a = await run(rustBin('echo_client'), ['rust to node', '--', node, server]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.stdout, 'rust to node\nprotocol 2026-07-28\n');
    const b = await run(node, [client, 'node to rust', '--', rustBin('echo_server')]);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.stdout, 'node to rust\nprotocol 2026-07-28\n');
  });

  test('the legacy lineage over stdio', async () => {
    const c = await Client.connectStdio([node, server], [], { lineage: 'legacy' });
    assert.equal(c.protocolVersion, '2025-11-25');
    assert.equal(textOf(await c.callTool('echo', { text: 'old' })), 'old');
    await c.close();
  });

  test('calls_python.mjs: a Node server whose tool calls a Python tool', async () => {
    const python = process.env.MCPCORE_PYTHON ?? 'python3';
    const pyServer = path.join(examples, '..', 'python', 'echo_server.py');
    const c = await Client.connectStdio(node, [path.join(examples, 'calls_python.mjs'), python, pyServer]);
    try {
      assert.deepEqual((await c.listTools()).map((t) => t.name), ['python__add', 'python__echo', 'shout']);
      assert.equal(textOf(await c.callTool('shout', { text: 'from node' })), 'FROM NODE!');
    } finally {
      await c.close();
    }
  });

  test('echo_client fails with a non-zero exit', async () => {
    const usage = await run(node, [client]);
    assert.equal(usage.code, 2);
    const missing = await run(node, [client, '--', '/nonexistent/server']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^echo_client: /);
  });
});
