// The client against real child processes: the Node toolbox server and the Rust echo_server,
// over stdio and HTTP, in both lineages; every error path leaves the process healthy.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  Client,
  McpError,
  RequestTimeout,
  RequestCancelled,
  ConnectionClosed,
  TransportError,
  InvalidInput,
} from '../lib/mcpcore.js';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pkgDir, run, toolbox, rustBin, spawnListening, textOf } from './helpers.mjs';

const LINEAGES = [
  { lineage: 'modern', version: '2026-07-28' },
  { lineage: 'legacy', version: '2025-11-25' },
];

for (const transport of ['stdio', 'http']) {
  for (const { lineage, version } of LINEAGES) {
    describe(`toolbox (node) over ${transport}, ${lineage}`, () => {
      let http;
      const connect = async (extra = {}) => {
        if (transport === 'stdio') return Client.connectStdio(process.execPath, [toolbox], { lineage, ...extra });
        return Client.connectHttp(http.url, { lineage, ...extra });
      };
      before(async () => {
        if (transport === 'http') http = await spawnListening(process.execPath, [toolbox, '--http']);
      });
      after(async () => http?.stop());

      test('negotiates, lists and calls', async () => {
        const c = await connect();
        try {
          assert.equal(c.lineage, lineage);
          assert.equal(c.protocolVersion, version);
          assert.equal(c.serverInfo.name, 'toolbox-node');
          if (lineage === 'legacy') assert.equal(c.instructions, 'test tools');
          const names = (await c.listTools()).map((t) => t.name);
          assert.deepEqual(names, ['add', 'boom', 'die', 'echo', 'nested', 'progress', 'reject', 'rpc', 'slow', 'teapot', 'whoami']);
          assert.equal(textOf(await c.callTool('echo', { text: 'héllo' })), 'héllo');
          const add = await c.callTool('add', { a: 2, b: 3 });
          assert.deepEqual(add.structuredContent, { sum: 5 });
          assert.equal(textOf(add), '{"sum":5}');
          const who = await c.callTool('whoami');
          assert.equal(who.structuredContent.protocolVersion, version);
          assert.ok(who.structuredContent.requestId);
          const raw = await c.request('tools/list', {});
          assert.ok(Array.isArray(raw.tools));
        } finally {
          await c.close();
        }
      });

      test('a throwing handler and a rejected promise give isError; an McpError gives its code', async () => {
        const c = await connect();
        try {
          const boom = await c.callTool('boom');
          assert.equal(boom.isError, true);
          assert.equal(textOf(boom), 'Error: kaboom');
          const rej = await c.callTool('reject');
          assert.equal(rej.isError, true);
          assert.equal(textOf(rej), 'TypeError: rejected on purpose');
          await assert.rejects(c.callTool('rpc'), (e) => {
            assert.ok(e instanceof McpError);
            assert.equal(e.code, -32042);
            assert.deepEqual(e.data, { why: 'test' });
            assert.equal(e.kind, 'rpc');
            return true;
          });
          await assert.rejects(c.callTool('nope'), (e) => e instanceof McpError && e.code === -32602);
          // mcpcore's own classes thrown by a handler are failures (as in Python); a host
          // subclass names its JSON-RPC error.
          const nested = await c.callTool('nested');
          assert.equal(nested.isError, true);
          assert.equal(textOf(nested), 'InvalidInput: a nested call failed');
          await assert.rejects(c.callTool('teapot'), (e) => e instanceof McpError && e.code === -32418);
          // SEP-1303 (2025-11-25, 2026-07-28): invalid arguments are a result the model reads.
          const bad = await c.callTool('echo', { text: 5 });
          assert.equal(bad.isError, true);
          assert.match(bad.content[0].text, /^Invalid arguments for tool echo: \/text: /);
          // still healthy
          assert.equal(textOf(await c.callTool('echo', { text: 'ok' })), 'ok');
        } finally {
          await c.close();
        }
      });

      test('a handler past the timeout gives RequestTimeout', async () => {
        const c = await connect();
        try {
          const t0 = Date.now();
          await assert.rejects(c.callTool('slow', { ms: 1000 }, { timeoutMs: 150 }), (e) => {
            assert.ok(e instanceof RequestTimeout);
            assert.equal(e.code, -32001);
            assert.equal(e.kind, 'timeout');
            return true;
          });
          assert.ok(Date.now() - t0 < 900);
          assert.equal(textOf(await c.callTool('slow', { ms: 10 })), 'slept 10');
        } finally {
          await c.close();
        }
      });

      test('the client default timeout applies too', async () => {
        const c = await connect({ timeoutMs: 1500 });
        try {
          await assert.rejects(c.callTool('slow', { ms: 2500 }), RequestTimeout);
        } finally {
          await c.close();
        }
      });

      test('an aborted call gives RequestCancelled and the connection stays usable', async () => {
        const c = await connect();
        try {
          const ac = new AbortController();
          setTimeout(() => ac.abort(), 100);
          await assert.rejects(c.callTool('slow', { ms: 3000 }, { signal: ac.signal }), (e) => {
            assert.ok(e instanceof RequestCancelled);
            assert.equal(e.kind, 'cancelled');
            return true;
          });
          // an already-aborted signal never sends the call
          await assert.rejects(c.callTool('echo', { text: 'x' }, { signal: AbortSignal.abort() }), RequestCancelled);
          // abort right away (before the native call registered)
          const now = new AbortController();
          const p = c.callTool('slow', { ms: 3000 }, { signal: now.signal });
          now.abort();
          await assert.rejects(p, RequestCancelled);
          // many calls in flight, some aborted
          const calls = Array.from({ length: 20 }, (_, i) => c.callTool('echo', { text: `n${i}` }));
          const texts = (await Promise.all(calls)).map(textOf);
          assert.deepEqual(texts, Array.from({ length: 20 }, (_, i) => `n${i}`));
        } finally {
          await c.close();
        }
      });

      test('progress notifications reach onProgress', async () => {
        const c = await connect();
        try {
          const seen = [];
          const r = await c.callTool('progress', { steps: 3 }, { onProgress: (p) => seen.push(p) });
          assert.equal(textOf(r), 'did 3 steps (wanted progress: true)');
          assert.deepEqual(
            seen.map((p) => p.progress),
            [1, 2, 3]
          );
          assert.equal(seen[0].total, 3);
          assert.equal(seen[0].message, 'step 1');
        } finally {
          await c.close();
        }
      });

      if (transport === 'stdio') {
        test('a server dying mid-call gives ConnectionClosed', async () => {
          const c = await connect();
          await assert.rejects(c.callTool('die'), (e) => {
            assert.ok(e instanceof ConnectionClosed, `${e.name}: ${e.message}`);
            assert.equal(e.kind, 'closed');
            return true;
          });
          await assert.rejects(c.callTool('echo', { text: 'x' }), ConnectionClosed);
          await c.close();
        });
      }
    });
  }
}

describe('the Rust echo_server', () => {
  for (const { lineage, version } of LINEAGES) {
    test(`over stdio, ${lineage}`, async () => {
      const c = await Client.connectStdio([rustBin('echo_server')], [], { lineage });
      try {
        assert.equal(c.protocolVersion, version);
        assert.equal(textOf(await c.callTool('echo', { text: 'rust' })), 'rust');
        assert.deepEqual((await c.callTool('add', { a: 1.5, b: 2 })).structuredContent, { sum: 3.5 });
      } finally {
        await c.close();
      }
    });
    test(`over HTTP, ${lineage}`, async () => {
      const srv = await spawnListening(rustBin('echo_server'), ['--http', '127.0.0.1:0']);
      try {
        const c = await Client.connectHttp(srv.url, { lineage, headers: { 'x-test': '1' }, bearerToken: 'tok' });
        assert.equal(c.protocolVersion, version);
        assert.equal(textOf(await c.callTool('echo', { text: 'rust http' })), 'rust http');
        await c.close();
      } finally {
        await srv.stop();
      }
    });
  }
  test('auto negotiation picks modern; pinned versions are honoured', async () => {
    const c = await Client.connectStdio(rustBin('echo_server'), [], { protocolVersion: '2025-06-18' });
    assert.equal(c.protocolVersion, '2025-06-18');
    assert.equal(c.lineage, 'legacy');
    await c.close();
  });
  test('a server dying mid-call over HTTP gives an McpError and the process stays healthy', async () => {
    const srv = await spawnListening(process.execPath, [toolbox, '--http']);
    const c = await Client.connectHttp(srv.url);
    await assert.rejects(c.callTool('die'), (e) => e instanceof McpError && ['closed', 'transport', 'http', 'protocol'].includes(e.kind));
    await c.close();
    await srv.stop();
  });
});

describe('the event loop and calls in flight', () => {
  test('a call in flight keeps the process up until it settles; then the process ends', async () => {
    // Nothing else keeps the event loop alive here (the child's pipes are the engine's, not
    // libuv's): only the calls in flight do (src/settle.rs).
    const lib = pathToFileURL(path.join(pkgDir, 'lib', 'mcpcore.js')).href;
    const script = `import { Client } from ${JSON.stringify(lib)};
const c = await Client.connectStdio(process.argv[1]);
c.callTool('slow', { ms: 700 }).then((r) => { console.log('settled', r.content[0].text); return c.close(); });`;
    const out = await run(process.execPath, ['--input-type=module', '-e', script, rustBin('fixture_server')], { timeoutMs: 20000 });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^settled slept/);
  });
});

describe("the child's stdout, read on the JS thread (lib/stdout-feed.js)", () => {
  test('a server exiting mid-call rejects the call with its exit code; the client stays usable to close', async () => {
    const c = await Client.connectStdio(process.execPath, [toolbox]);
    assert.equal(textOf(await c.callTool('echo', { text: 'before' })), 'before');
    await assert.rejects(c.callTool('die'), (e) => e instanceof ConnectionClosed && /exited with code 3/.test(e.message));
    await c.close();
  });
  test('a process outside the group holding stdout delays the end by the linger only, and keeps nothing alive', async () => {
    // `setsid sleep` leaves the server's process group with its stdout: end of file never
    // comes, so the connection ends a moment after the server exits (the core's linger), and
    // the unref'd pipe does not keep the host alive.
    const lib = pathToFileURL(path.join(pkgDir, 'lib', 'mcpcore.js')).href;
    const script = `import { Client } from ${JSON.stringify(lib)};
const [node, box] = process.argv.slice(1);
const c = await Client.connectStdio('sh', ['-c', 'setsid sleep 20 & exec "$0" "$1"', node, box]);
const t = Date.now();
try { await c.callTool('die'); } catch (e) { console.log('rejected', e.constructor.name, Date.now() - t); }`;
    const started = Date.now();
    const out = await run(process.execPath, ['--input-type=module', '-e', script, process.execPath, toolbox], { timeoutMs: 15000 });
    assert.equal(out.code, 0, out.stderr);
    const m = /^rejected ConnectionClosed (\d+)/.exec(out.stdout);
    assert.ok(m, out.stdout);
    assert.ok(Number(m[1]) < 5000, `the call ended ${m[1]} ms after it started`);
    assert.ok(Date.now() - started < 12000, 'the host exited without waiting for the held pipe');
  });
});

describe('connection errors', () => {
  test('a missing program is a TransportError', async () => {
    await assert.rejects(Client.connectStdio('/nonexistent/mcp-server'), (e) => e instanceof McpError && e.kind === 'transport');
  });
  test('nothing listening is an McpError', async () => {
    await assert.rejects(Client.connectHttp('http://127.0.0.1:9/mcp', { timeoutMs: 2000 }), (e) => e instanceof McpError);
  });
  test('timeoutMs bounds the whole connect (issue 37: a silent server took 7 s at 2000)', async () => {
    const start = Date.now();
    await assert.rejects(Client.connectStdio('sh', ['-c', 'exec sleep 30'], { timeoutMs: 2000 }), (e) => {
      assert.ok(e instanceof RequestTimeout, `${e}`);
      assert.match(e.message, /timed out after 2\.0 s/);
      return true;
    });
    assert.ok(Date.now() - start < 2900, `took ${Date.now() - start} ms`);
  });
  test('bad options are InvalidInput', async () => {
    await assert.rejects(Client.connectStdio(rustBin('echo_server'), [], { lineage: 'medieval' }), InvalidInput);
    await assert.rejects(Client.connectHttp('http://127.0.0.1:9/mcp', { transport: 'pigeon' }), InvalidInput);
  });
  test('a closed client raises ConnectionClosed', async () => {
    const c = await Client.connectStdio(rustBin('echo_server'));
    await c.close();
    await assert.rejects(c.callTool('echo', { text: 'x' }), ConnectionClosed);
    assert.equal(c.protocolVersion, '2026-07-28', 'what negotiation settled stays readable');
  });
  test('TransportError is exported', () => assert.equal(typeof TransportError, 'function'));
});
