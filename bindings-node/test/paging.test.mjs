// Paging for tools that list records (issue 35, "list methods page 20 items by default with a cap
// of 200"): `page(items, { limit, cursor })` in a tool, called through a real client over HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Server, page } from '../lib/mcpcore.js';

const invoices = Array.from({ length: 450 }, (_, i) => ({ id: `inv-${String(i).padStart(4, '0')}` }));

test('a list tool pages by default, caps, and follows cursors to the end', async () => {
  const server = new Server({ name: 'billing', version: '1.0' });
  const schema = { type: 'object', properties: { limit: { type: 'integer' }, cursor: { type: 'string' } } };
  server.tool('list_invoices', { inputSchema: schema }, ({ limit, cursor }) => page(invoices, { limit, cursor }));
  const serving = await server.serveHttp({ port: 0 });
  try {
    const c = await Client.connectHttp(serving.url);
    try {
      const first = (await c.callTool('list_invoices', {})).structuredContent;
      assert.equal(first.items.length, 20);
      assert.ok(first.nextCursor);
      const seen = [];
      let cursor;
      do {
        const got = (await c.callTool('list_invoices', cursor ? { limit: 1000, cursor } : { limit: 1000 })).structuredContent;
        assert.ok(got.items.length <= 200);
        seen.push(...got.items.map((i) => i.id));
        cursor = got.nextCursor;
      } while (cursor);
      assert.deepEqual(seen, invoices.map((i) => i.id));
      // An invalid cursor is -32602, as for MCP's own list methods (2026-07-28 pagination).
      const bad = await c.callTool('list_invoices', { cursor: 'forged' }).then(() => null, (e) => e);
      assert.equal(bad?.code, -32602, String(bad));
      assert.match(bad.message, /invalid cursor/);
    } finally {
      await c.close();
    }
  } finally {
    await serving.shutdown();
  }
  assert.throws(() => page([1], { limit: 0 }), /limit must be at least 1/);
  assert.deepEqual(page([], {}), { items: [] });
});
