// No orphan when the host process ends: a Node program that connected to a stdio server (behind
// `sh -c`, with a background process in the server's tree) and is killed with SIGKILL or SIGTERM,
// or exits without closing the client, leaves no process of that tree behind. The core starts each
// server in its own process group with a parent-death signal and a group watchdog; this checks the
// binding's host gets those guarantees. Every process carries a marker in its environment, so the
// whole tree is checked, grandchildren included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pkgDir, toolbox } from './helpers.mjs';

const host = `
const { Client } = await import(${JSON.stringify(path.join(pkgDir, 'lib', 'mcpcore.js'))});
const [server, how] = process.argv.slice(-2);
const client = await Client.connectStdio('sh', ['-c', 'sleep 3600 & ' + server + '; true']);
const call = client.callTool('slow', { ms: 3600000 });
call.catch(() => {});
await new Promise((r) => setTimeout(r, 300)); // the call is in flight
console.log('ready');
if (how === 'exit') process.stdin.once('data', () => process.exit(0)); // no close(): ends with the client open
await call;
`;

/** Live (not zombie) processes whose environment holds MCPCORE_TEST_MARK=mark. */
function marked(mark) {
  const needle = `MCPCORE_TEST_MARK=${mark}`;
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(needle)) continue;
      const state = readFileSync(`/proc/${name}/stat`, 'latin1').split(') ').pop().split(' ')[0];
      if (state === 'Z') continue;
      found.push(`${name} ${readFileSync(`/proc/${name}/cmdline`, 'latin1').replaceAll('\0', ' ')}`);
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

async function waitFor(predicate, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return predicate();
}

for (const how of ['SIGKILL', 'SIGTERM', 'exit']) {
  test(`the server tree ends with its host (${how})`, { skip: process.platform !== 'linux' }, async () => {
    const mark = randomUUID();
    const child = spawn(process.execPath, ['--input-type=module', '-e', host, '--', `${process.execPath} ${toolbox}`, how], {
      env: { ...process.env, MCPCORE_TEST_MARK: mark },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
    try {
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      assert.ok(await waitFor(() => out.includes('ready'), 20000), `the host never connected: ${out}`);
      // host, sh, sleep, the server (and the core's watchdog)
      assert.ok(marked(mark).length >= 4, marked(mark).join('\n'));
      if (how === 'exit') child.stdin.write('go\n');
      else child.kill(how);
      const { code, signal } = await exited;
      if (how === 'exit') assert.equal(code, 0);
      else assert.equal(signal, how);
      const gone = await waitFor(() => marked(mark).length === 0, 10000);
      assert.ok(gone, `processes outlived the host (${how}):\n${marked(mark).join('\n')}`);
    } finally {
      for (const line of marked(mark)) {
        try {
          process.kill(Number(line.split(' ')[0]), 'SIGKILL');
        } catch {
          // already gone
        }
      }
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
}
