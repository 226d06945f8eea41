// @modelcontextprotocol/server-everything (pinned in tests/interop/ts) driven by the Node client
// over stdio, legacy Streamable HTTP and the 2024-11-05 SSE transport: every tool it offers a
// client declaring sampling, elicitation (form and URL) and roots, as listed in
// tests/vectors/everything/tools.json (the Rust, Python and Kotlin tests run the same file). JS
// handlers answer its sampling and elicitation tools (one sync, one async), its task-required
// tool runs as a task, and logs, resource updates and a roots change arrive over each transport.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '../lib/mcpcore.js';
import { repo, spawnListening, textOf } from './helpers.mjs';

const vector = JSON.parse(readFileSync(path.join(repo, 'tests', 'vectors', 'everything', 'tools.json'), 'utf8'));
const ts = path.join(repo, 'tests', 'interop', 'ts');
const everything = path.join(ts, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const host = vector.host;

/** A queue of values, awaited one at a time (bounded: a missing value fails the test). */
function queue() {
  const items = [];
  const waiting = [];
  return {
    push(v) {
      const w = waiting.shift();
      if (w) w(v);
      else items.push(v);
    },
    next(what) {
      if (items.length) return Promise.resolve(items.shift());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${what} arrived`)), 20000);
        waiting.push((v) => {
          clearTimeout(timer);
          resolve(v);
        });
      });
    },
  };
}

function handlers(asked) {
  return {
    onElicitation: (params) => {
      asked.push('elicitation');
      return params.mode === 'url' ? host.url_elicitation : { ...host.elicitation };
    },
    onSampling: async (params) => {
      asked.push('sampling');
      assert.equal(params.messages[0].role, 'user');
      return { content: host.sampling, model: 'test-model' };
    },
    roots: host.roots,
    timeoutMs: 30000,
  };
}

async function everyTool(client, asked) {
  const logs = queue();
  const updates = queue();
  client.onLog((m) => logs.push(String(m.data)));
  client.onResourceUpdated((uri) => updates.push(uri));
  const nextLog = async (containing) => {
    while (!(await logs.next('log')).includes(containing));
  };
  const offered = (await client.listTools()).map((t) => t.name).sort();
  assert.deepEqual(offered, vector.calls.map((c) => c.tool).sort(), 'the tools offered are the tools of the vector');
  await client.subscribe(vector.subscribe);
  let passed = 0;
  for (const call of vector.calls) {
    const name = call.tool;
    const progress = [];
    const before = asked.length;
    const r = await client.callTool(name, call.arguments, { onProgress: (p) => progress.push(p.progress) });
    assert.ok(!r.isError, `${name}: ${JSON.stringify(r)}`);
    const text = textOf(r);
    for (const want of call.text ?? []) assert.ok(text.includes(want), `${name}: ${want} not in ${text}`);
    const types = r.content.map((c) => c.type);
    for (const ty of call.types ?? []) assert.ok(types.includes(ty), `${name}: no ${ty} in ${types}`);
    for (const key of call.structured ?? []) assert.ok(key in (r.structuredContent ?? {}), `${name}: ${key}`);
    if (call.progress !== undefined) assert.equal(progress.length, call.progress, `${name}: progress`);
    if (call.log !== undefined) await nextLog(call.log);
    if (call.resource_updated) assert.equal(await updates.next('resources/updated'), vector.subscribe);
    if (/^trigger-(elicitation|url|sampling)/.test(name) || call.task) assert.ok(asked.length > before, `${name}: the host was not asked`);
    passed++;
  }
  // The roots change: the server asks again (and says so in a log), then lists the new roots.
  client.setRoots(host.roots_later);
  await nextLog('Roots updated: 2 root(s)');
  const roots = await client.callTool('get-roots-list', {});
  assert.ok(textOf(roots).includes('file:///srv/second-root'), textOf(roots));
  return passed;
}

describe('server-everything', { concurrency: true }, () => {
  test('the peer is installed', () => assert.ok(existsSync(everything), `${everything}: run npm ci in tests/interop/ts`));

  test('stdio: every tool', async () => {
    const asked = [];
    const client = await Client.connectStdio(`node ${everything} stdio`, handlers(asked));
    try {
      assert.equal(client.protocolVersion, '2025-11-25');
      assert.equal(await everyTool(client, asked), 17);
    } finally {
      await client.close();
    }
  });

  for (const transport of ['streamableHttp', 'sse']) {
    test(`${transport}: every tool`, async () => {
      const served = await spawnListening('node', [path.join(ts, 'everything.mjs'), '--transport', transport, '--port', '0'], { pattern: /READY (\S+)/ });
      const asked = [];
      // The 2024-11-05 transport would otherwise speak 2024-11-05, which has no elicitation.
      const extra = transport === 'sse' ? { transport: 'sse', protocolVersion: '2025-11-25' } : {};
      const client = await Client.connectHttp(served.url, { ...handlers(asked), ...extra });
      try {
        assert.equal(await everyTool(client, asked), 17);
      } finally {
        await client.close();
        await served.stop();
      }
    });
  }
});
