// Tool search (issue 35) in Node: the Node example server with --tool-search --synthetic-tools
// 1000 (a real child on stdio) lists its pinned tools and search_tools only, on both lineages; a
// search finds a generated tool, which is callable by name; the regex mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, Server } from '../lib/mcpcore.js';
import { repo } from './helpers.mjs';

const echo = path.join(repo, 'examples', 'node', 'echo_server.mjs');

for (const protocolVersion of ['2026-07-28', '2025-11-25']) {
  test(`a thousand Node tools are searched, not listed (${protocolVersion})`, async () => {
    const client = await Client.connectStdio(process.execPath, [echo, '--tool-search', '--synthetic-tools', '1000'], { protocolVersion });
    try {
      assert.deepEqual((await client.listTools()).map((t) => t.name), ['add', 'echo', 'search_tools']);
      const found = await client.callTool('search_tools', { query: 'approve an expense', limit: 3 });
      const tools = found.structuredContent.tools;
      assert.equal(tools.length, 3);
      assert.ok(tools[0].name.startsWith('approve_expense_'), JSON.stringify(tools));
      const top = tools[0].name;
      assert.equal((await client.callTool(top, { id: 'e-1' })).content[0].text, `${top} done`);
      const bulk = await client.callTool('search_tools', { query: '_in_bulk$', regex: true, limit: 50 });
      assert.equal(bulk.structuredContent.tools.length, 50);
    } finally {
      await client.close();
    }
  });
}

test('tool search is turned on once', () => {
  const server = new Server({ name: 's', version: '1' });
  server.toolSearch(['echo']);
  assert.throws(() => server.toolSearch(['echo']), /already/);
});
