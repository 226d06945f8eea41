// MCP Apps (SEP-1865) in Node: the Node example server with --apps (a real child on stdio) serves
// show_echo bound to ui://echo/view.html; the mcpcore Node client finds the binding, reads the
// app and gets the text fallback on both lineages, and the official Python SDK client (2.3.0, as
// an apps host) reads the same app; the registration rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, Server, appsMeta } from '../lib/mcpcore.js';
import { repo, run } from './helpers.mjs';

const echo = path.join(repo, 'examples', 'node', 'echo_server.mjs');
const MIME = 'text/html;profile=mcp-app';

for (const protocolVersion of ['2026-07-28', '2025-11-25']) {
  test(`our client finds, reads and calls the Node echo app (${protocolVersion})`, async () => {
    const client = await Client.connectStdio(process.execPath, [echo, '--apps'], { protocolVersion });
    try {
      assert.equal(client.offersApps(), true);
      const tools = await client.listTools();
      const show = tools.find((t) => t.name === 'show_echo');
      assert.deepEqual(show._meta, { ui: { resourceUri: 'ui://echo/view.html' } });
      const app = await client.readApp('ui://echo/view.html');
      assert.equal(app.uri, 'ui://echo/view.html');
      assert.ok(app.html.startsWith('<!DOCTYPE html>') && app.html.includes('ui/initialize'));
      assert.deepEqual(app.meta, { prefersBorder: true });
      const r = await client.callTool('show_echo', { text: 'hi' });
      assert.equal(r.content[0].text, 'hi');
      assert.deepEqual(r.structuredContent, { text: 'hi' });
    } finally {
      await client.close();
    }
  });
}

test('the official Python SDK client reads our Node app', async () => {
  const py = process.env.MCPCORE_PYTHON ?? path.join(repo, '.venv', 'bin', 'python');
  const script = path.join(repo, 'tests', 'interop', 'python', 'sdk_apps_client.py');
  for (const mode of ['modern', 'legacy']) {
    const out = await run(py, [script, '--mode', mode, '--stdio', process.execPath, echo, '--apps']);
    assert.equal(out.code, 0, out.stderr);
    const got = JSON.parse(out.stdout);
    assert.deepEqual(got.app, { uri: 'ui://echo/view.html', mimeType: MIME, html: true, meta: { prefersBorder: true } });
    assert.deepEqual(got.fallback, ['hi from the python sdk']);
  }
});

test('apps register with their rules', () => {
  const server = new Server({ name: 'apps', version: '1' });
  assert.throws(() => server.addApp('https://example.com/view.html', '<p>'), /ui:\/\//);
  const tool = server.app('ui://b/view.html', '<p>b</p>', 'refresh', () => 'refreshed', { visibility: ['app'], csp: { connectDomains: ['https://api.example.com'] } });
  assert.deepEqual(tool._meta, appsMeta('ui://b/view.html', ['app']));
  assert.deepEqual(tool._meta, { ui: { resourceUri: 'ui://b/view.html', visibility: ['app'] } });
});
