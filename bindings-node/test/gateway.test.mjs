// Gateway: upstream MCP servers (the Node toolbox server and the Rust conformance fixture as
// stdio children) behind one server built in JS from a config object, with a local JS tool
// beside them, served on HTTP and called by the mcpcore client in both lineages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Gateway, Client, InvalidInput, McpError } from '../lib/mcpcore.js';
import { rustBin, textOf, toolbox } from './helpers.mjs';

const config = () => ({
  mcpServers: {
    box: { command: process.execPath, args: [toolbox], include: ['echo', 'slow'] },
    fixture: {
      command: rustBin('mcpcore'),
      args: ['conformance-server', '--stdio'],
      prefix: 'fx.',
      protocolVersion: '2025-11-25',
      include: ['test_simple_text'],
    },
  },
});

test('a gateway from a config object, with a local tool, in both lineages', async () => {
  const gateway = new Gateway(config(), { name: 'node-gateway' });
  gateway.tool('local_time', { inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }, ({ city }) => `noon in ${city}`);
  assert.throws(() => gateway.upstreams, InvalidInput);
  await gateway.start();
  try {
    assert.deepEqual(gateway.upstreams, ['box', 'fixture']);
    assert.deepEqual(gateway.status('box'), { state: 'up', restarts: 0, lastError: undefined });
    assert.equal(gateway.status('nope'), undefined);
    const serving = await gateway.serveHttp();
    try {
      for (const [lineage, version] of [['modern', '2026-07-28'], ['legacy', '2025-11-25']]) {
        const client = await Client.connectHttp(serving.url, { lineage });
        try {
          assert.equal(client.protocolVersion, version);
          assert.equal(client.serverInfo.name, 'node-gateway');
          const names = (await client.listTools()).map((t) => t.name);
          assert.deepEqual(names, ['box__echo', 'box__slow', 'fx.test_simple_text', 'local_time']);
          assert.equal(textOf(await client.callTool('box__echo', { text: 'through the gateway' })), 'through the gateway');
          assert.match(textOf(await client.callTool('fx.test_simple_text', {})).toLowerCase(), /simple text/);
          assert.equal(textOf(await client.callTool('local_time', { city: 'Bergen' })), 'noon in Bergen');
        } finally {
          await client.close();
        }
      }
    } finally {
      await serving.shutdown();
    }
  } finally {
    await gateway.close();
  }
  // Closed: the upstreams' tools are gone, the local one stays.
  assert.deepEqual(gateway.registry.names, ['local_time']);
});

test('bad configs reject with the entry named', async () => {
  await assert.rejects(new Gateway({ mcpServers: { broken: { args: [] } } }).start(), (e) => e instanceof InvalidInput && /mcpServers\.broken: needs/.test(e.message));
  await assert.rejects(new Gateway('{"mcpServers": {"gone": {"command": "/nonexistent/server"}}}').start(), (e) => e instanceof McpError && /upstream "gone"/.test(e.message));
});
