// Every ```js snippet of bindings-node/README.md runs, in order, each as its own ES module
// ('mcpcore' and 'zod' resolved as this package resolves them), against real peers. What a
// `console.log(...); // value` line says it prints is what it prints.
//
// Only the calls that would serve forever are held back: `serveStdio()` resolves at once
// (the server is recorded) and `serveHttp` binds a free port instead of the one written. The
// client snippet's `http://127.0.0.1:8000/mcp` (the port the server snippet names) is the first
// snippet's server, served over HTTP on a free port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, Server } from '../lib/mcpcore.js';
import { pkgDir } from './helpers.mjs';

const README = path.join(pkgDir, 'README.md');
const WRITTEN_URL = 'http://127.0.0.1:8000/mcp';

/** The ```js blocks of the README, with their line numbers. */
function snippets() {
  const text = readFileSync(README, 'utf8');
  return [...text.matchAll(/^```js\n([\s\S]*?)^```/gm)].map((m) => ({
    line: text.slice(0, m.index).split('\n').length,
    code: m[1],
  }));
}

test('the README has its js snippets', () => {
  assert.ok(snippets().length >= 4);
});

test('every js snippet of the README runs', async () => {
  const resolved = { mcpcore: import.meta.resolve('mcpcore'), zod: import.meta.resolve('zod') };
  assert.equal(resolved.mcpcore, import.meta.resolve('../lib/mcpcore.js'), 'the same module instance as this test');
  const held = { stdio: [], servings: [] };
  const { serveStdio, serveHttp } = Server.prototype;
  const { connectHttp } = Client;
  let target = null;
  Server.prototype.serveStdio = async function () {
    held.stdio.push(this);
  };
  Server.prototype.serveHttp = async function (options = {}) {
    const serving = await serveHttp.call(this, { ...options, port: 0 });
    held.servings.push(serving);
    return serving;
  };
  Client.connectHttp = (url, options) => connectHttp.call(Client, url === WRITTEN_URL && target ? target : url, options);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcpcore-readme-'));
  const log = console.log;
  try {
    for (const { line, code } of snippets()) {
      const source = code.replace(/from '(mcpcore|zod)'/g, (_m, name) => `from '${resolved[name]}'`);
      const file = path.join(dir, `readme-${line}.mjs`);
      writeFileSync(file, source);
      const printed = [];
      console.log = (...args) => printed.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
      try {
        await import(pathToFileURL(file).href);
      } catch (e) {
        throw new Error(`README.md:${line}: ${e.stack ?? e}`);
      } finally {
        console.log = log;
      }
      for (const m of code.matchAll(/^\s*console\.log\(.*\);?\s*\/\/\s*(.+)$/gm)) {
        assert.ok(printed.some((p) => p.includes(m[1].trim())), `README.md:${line}: ${m[1]} not printed; got ${printed}`);
      }
      // The first server snippet is what the client snippet's written URL reaches.
      if (target === null && held.stdio.length > 0) {
        const serving = await serveHttp.call(held.stdio[0], { port: 0 });
        held.servings.push(serving);
        target = serving.url;
      }
    }
    assert.ok(held.stdio.length >= 2, 'the server snippets ended in serveStdio');
    assert.ok(target !== null);
  } finally {
    console.log = log;
    Object.assign(Server.prototype, { serveStdio, serveHttp });
    Client.connectHttp = connectHttp;
    for (const s of held.servings) await s.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
});
