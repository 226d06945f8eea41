// stdio served on the JS thread (lib/stdio.js, src/stdio.rs, core server::fed): libuv reads
// stdin, each chunk is served in place, a synchronous handler runs inside stdin's 'data' event,
// and its answer is written from there. Against the real server process, with our client and
// with raw frames (split lines, several frames in one write, output larger than the pipe).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from '../lib/mcpcore.js';
import { here, run, textOf } from './helpers.mjs';

const server = path.join(here, 'servers', 'in-place.mjs');
const init = (version) => ({
  jsonrpc: '2.0', id: 'init', method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const line = (m) => JSON.stringify(m) + '\n';
const call = (id, name, args = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

for (const lineage of ['modern', 'legacy']) {
  describe(`stdio on the JS thread (${lineage})`, () => {
    test('a synchronous handler is called in place, from stdin\'s data event', async () => {
      const c = await Client.connectStdio(process.execPath, [server], { lineage });
      try {
        // In place is best effort: a frame that meets the driver busy on the runtime's thread
        // (a loaded machine) is served there instead, so one of a few calls must show it.
        const stacks = [];
        for (let i = 0; i < 5 && !stacks.some((s) => /onData \(.*lib[\\/]stdio\.js/.test(s)); i++) {
          stacks.push(textOf(await c.callTool('stack', {})));
        }
        assert.match(stacks.at(-1), /onData \(.*lib[\\/]stdio\.js/, stacks.join('\n---\n'));
        assert.equal(textOf(await c.callTool('echo', { text: 'ü ✓' })), 'ü ✓');
      } finally {
        await c.close();
      }
    });

    test('progress (sync and async handlers), cancellation and a long answer', async () => {
      const c = await Client.connectStdio(process.execPath, [server], { lineage });
      try {
        for (const name of ['progress', 'sync-progress']) {
          const seen = [];
          const out = await c.callTool(name, {}, { onProgress: (p) => seen.push(p.progress) });
          assert.ok(['done', 'reported'].includes(textOf(out)));
          assert.deepEqual(seen, name === 'progress' ? [1, 2, 3] : [1, 2]);
        }
        const ac = new AbortController();
        setTimeout(() => ac.abort(), 50);
        await assert.rejects(c.callTool('wait', { ms: 5000 }, { signal: ac.signal }), (e) => e.kind === 'cancelled');
        // 3 MB of two-byte characters: far more than a pipe holds, written as the client reads.
        assert.equal(textOf(await c.callTool('big', { n: 1_500_000 })).length, 1_500_000);
        const many = await Promise.all(Array.from({ length: 20 }, (_, i) => c.callTool('echo', { text: `n${i}` })));
        assert.deepEqual(many.map(textOf), Array.from({ length: 20 }, (_, i) => `n${i}`));
      } finally {
        await c.close();
      }
    });
  });
}

describe('async handlers settle through one native call (ToolCall.settle)', () => {
  test('a thenable, a rejection, a JSON-RPC error and a JSON value, each to its own caller', async () => {
    const c = await Client.connectStdio(process.execPath, [server], { lineage: 'modern' });
    try {
      const [thenable, json, rejected] = await Promise.all([
        c.callTool('thenable', {}), c.callTool('async-json', {}), c.callTool('rejects', {}),
      ]);
      assert.equal(textOf(thenable), 'from a thenable');
      assert.deepEqual(JSON.parse(textOf(json)), { n: 1, list: ['a', 'b'] });
      assert.equal(rejected.isError, true);
      assert.match(textOf(rejected), /it failed/);
      await assert.rejects(c.callTool('rejects-rpc', {}), (e) => e.code === -32602 && /bad params here/.test(e.message) && e.data?.field === 'x');
    } finally {
      await c.close();
    }
  });
});

describe('a handler whose Promise never settles', () => {
  test('keeps its call waiting through garbage collections: the caller times out, no reply is made up', async () => {
    const c = await Client.connectStdio(process.execPath, ['--expose-gc', server], { lineage: 'modern' });
    try {
      const never = c.callTool('never', {}, { timeoutMs: 1500 });
      never.catch(() => {});
      for (let i = 0; i < 3; i++) assert.equal(textOf(await c.callTool('gc', {})), 'function');
      await assert.rejects(never, (e) => e.kind === 'timeout');
    } finally {
      await c.close();
    }
  });
});

describe('stdio on the JS thread: raw frames', () => {
  test('lines split across writes, several frames in one write, and a call in flight when stdin ends', async () => {
    const child = spawn(process.execPath, [server], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const answers = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const until = async (n) => {
      for (let i = 0; i < 400 && answers().length < n; i++) await new Promise((r) => setTimeout(r, 10));
      return answers();
    };
    const first = line(init('2025-11-25'));
    child.stdin.write(first.slice(0, 7));
    await new Promise((r) => setTimeout(r, 30));
    child.stdin.write(first.slice(7, 60));
    await new Promise((r) => setTimeout(r, 30));
    child.stdin.write(first.slice(60));
    assert.equal((await until(1))[0].id, 'init');
    child.stdin.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\r\n\n' +
      line(call(1, 'echo', { text: 'a' })) + line(call(2, 'echo', { text: 'b' })) + '{"jsonrpc":"2.0","id":3,"method":"tools/call",');
    child.stdin.write('"params":{"name":"echo","arguments":{"text":"c"}}}\n');
    const got = await until(4);
    assert.deepEqual(got.slice(1).map((m) => [m.id, m.result.content[0].text]), [[1, 'a'], [2, 'b'], [3, 'c']]);
    // A last call without its newline, then the end of stdin: it is still served, and the call
    // in flight before it finishes within the grace period before the process exits.
    child.stdin.write(line(call(4, 'wait', { ms: 100 })) + JSON.stringify(call(5, 'echo', { text: 'last' })));
    child.stdin.end();
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 0, err);
    const byId = Object.fromEntries(answers().map((m) => [m.id, m]));
    assert.equal(byId[4].result.content[0].text, 'waited 100');
    assert.equal(byId[5].result.content[0].text, 'last');
    assert.match(err, /SERVED/);
  });

  test('a bad line is answered and serving goes on', async () => {
    const input = line(init('2025-11-25')) + 'not json\n' + line({ jsonrpc: '2.0', method: 'notifications/initialized' }) +
      line(call(7, 'echo', { text: 'still here' }));
    const res = await run(process.execPath, [server], { input, timeoutMs: 20000 });
    assert.equal(res.code, 0, res.stderr);
    const msgs = res.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.equal(msgs.find((m) => m.id === null)?.error?.code, -32700);
    assert.equal(msgs.find((m) => m.id === 7).result.content[0].text, 'still here');
  });
});
