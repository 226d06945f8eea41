// Refusals with a cause and a remedy (issue 35): a Node tool returns refusal(...); our client,
// over HTTP on both lineages, gets isError with the message as text and {reason, remedy, ...}
// as structured content, even from a tool whose outputSchema it does not match.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Server, refusal } from '../lib/mcpcore.js';

test('a refusal says its reason and remedy on both lineages', async () => {
  const server = new Server({ name: 'refusals', version: '1' });
  server.tool('close_invoice', {
    inputSchema: { type: 'object', properties: { invoice_id: { type: 'string' } }, required: ['invoice_id'] },
    outputSchema: { type: 'object', properties: { closed: { type: 'boolean' } }, required: ['closed'] },
  }, ({ invoice_id }) => refusal('record_read_only', 'reopen the invoice first', undefined, { invoice_id }));
  const serving = await server.serveHttp({ port: 0 });
  try {
    for (const protocolVersion of ['2026-07-28', '2025-11-25']) {
      const client = await Client.connectHttp(serving.url, { protocolVersion });
      const r = await client.callTool('close_invoice', { invoice_id: 'inv-7' });
      assert.equal(r.isError, true);
      assert.equal(r.content[0].text, 'Refused (record_read_only): reopen the invoice first');
      assert.deepEqual(r.structuredContent, { reason: 'record_read_only', remedy: 'reopen the invoice first', invoice_id: 'inv-7' });
      await client.close();
    }
  } finally {
    await serving.shutdown();
  }
});

test('the refusal shape', () => {
  assert.deepEqual(refusal('scope_not_granted', 'ask for mcp:write', 'You may not write.', { scope: 'mcp:write' }), {
    content: [{ type: 'text', text: 'You may not write.' }],
    isError: true,
    structuredContent: { reason: 'scope_not_granted', remedy: 'ask for mcp:write', scope: 'mcp:write' },
  });
});
