// Asking before acting (issue 35, "pending approval"): `ctx.approve(action)` asks the user with a
// confirmation form through the real client (`onElicitation`) on both lineages (2026-07-28: an
// MRTR round the client retries; legacy: an elicitation/create request). Approved acts,
// declined does not; a client that cannot be asked gets 'pending', and the tool answers
// `pendingApproval(...)`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Server, pendingApproval } from '../lib/mcpcore.js';

function approvalServer(deleted) {
  const server = new Server({ name: 'approvals', version: '1.0' });
  const schema = { type: 'object', properties: { invoice_id: { type: 'string' } }, required: ['invoice_id'] };
  server.tool('delete_invoice', { inputSchema: schema }, async ({ invoice_id }, ctx) => {
    const verdict = await ctx.approve(`Delete invoice ${invoice_id}`);
    if (verdict === 'pending') return pendingApproval(`Deleting ${invoice_id} waits for a manager.`, { approval_id: `apr-${invoice_id}` });
    if (verdict === 'declined') return { deleted: false };
    deleted.push(invoice_id);
    return { deleted: true };
  });
  return server;
}

for (const lineage of ['modern', 'legacy']) {
  test(`approve asks the user, and is pending when nobody can be asked (${lineage})`, async () => {
    const deleted = [];
    const asked = [];
    const serving = await approvalServer(deleted).serveHttp({ port: 0 });
    try {
      const answers = [{ approve: true }, { action: 'decline' }];
      const c = await Client.connectHttp(serving.url, {
        lineage,
        onElicitation: (params) => {
          asked.push(params);
          return answers.shift();
        },
      });
      try {
        const yes = await c.callTool('delete_invoice', { invoice_id: '42' });
        assert.deepEqual(yes.structuredContent, { deleted: true });
        assert.equal(asked[0].message, 'Delete invoice 42');
        assert.equal(asked[0].requestedSchema.properties.approve.type, 'boolean');
        const no = await c.callTool('delete_invoice', { invoice_id: '43' });
        assert.deepEqual(no.structuredContent, { deleted: false });
      } finally {
        await c.close();
      }
      const plain = await Client.connectHttp(serving.url, { lineage });
      try {
        const pending = await plain.callTool('delete_invoice', { invoice_id: '44' });
        assert.equal(pending.isError, false);
        assert.deepEqual(pending.structuredContent, { status: 'pending_approval', approval_id: 'apr-44' });
      } finally {
        await plain.close();
      }
      assert.deepEqual(deleted, ['42']);
      assert.equal(asked.length, 2);
    } finally {
      await serving.shutdown();
    }
  });
}
