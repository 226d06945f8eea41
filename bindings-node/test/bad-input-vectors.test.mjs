// The shared bad-input vectors (tests/vectors/bad-input/, see its README) against a server written
// with the Node binding (test/servers/toolbox.mjs), on stdio and on HTTP, so the Node binding
// answers bad input exactly as the Rust, Python and Kotlin servers do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { repo, toolbox, spawnListening } from './helpers.mjs';

const vectors = (name) => JSON.parse(readFileSync(path.join(repo, 'tests', 'vectors', 'bad-input', name), 'utf8'));
const ALIVE = {
  jsonrpc: '2.0', id: 'alive', method: 'tools/list',
  params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
};

/** The bytes of a `send` or `body` object. */
function toBytes(body) {
  if ('json' in body) return Buffer.from(JSON.stringify(body.json));
  if ('text' in body) return Buffer.from(body.text, 'utf8');
  if ('hex' in body) return Buffer.from(body.hex, 'hex');
  return Buffer.concat(body.repeat.map(([text, times]) => Buffer.from(text.repeat(times), 'utf8')));
}

function check(what, got, expect) {
  if ('code' in expect) assert.equal(got.error?.code, expect.code, `${what}: ${JSON.stringify(got)}`);
  if (expect.result) assert.ok('result' in got, `${what}: ${JSON.stringify(got)}`);
  if ('id' in expect) assert.deepEqual(got.id, expect.id, `${what}: ${JSON.stringify(got)}`);
}

/** Reads stdout lines of a child one at a time. */
function lineReader(stream) {
  let buf = '';
  const waiting = [];
  const lines = [];
  stream.setEncoding('utf8');
  stream.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (waiting.length) waiting.shift()(line);
      else lines.push(line);
    }
  });
  stream.on('end', () => waiting.splice(0).forEach((w) => w(null)));
  return () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((r) => waiting.push(r)));
}

const write = (stream, bytes) => new Promise((r) => (stream.write(bytes) ? r() : stream.once('drain', r)));

for (const session of vectors('stdio.json').sessions) {
  test(`stdio vectors: ${session.name}`, async () => {
    const child = spawn(process.execPath, [toolbox], { stdio: ['pipe', 'pipe', 'ignore'] });
    const next = lineReader(child.stdout);
    try {
      for (const [i, step] of session.steps.entries()) {
        await write(child.stdin, Buffer.concat([toBytes(step.send), Buffer.from('\n')]));
        if (step.expect !== null) {
          const line = await next();
          assert.ok(line !== null, `step ${i}: the server closed stdout`);
          check(`step ${i}`, JSON.parse(line), step.expect);
        }
      }
      await write(child.stdin, `${JSON.stringify(ALIVE)}\n`);
      const last = JSON.parse(await next());
      assert.equal(last.id, 'alive', JSON.stringify(last));
      assert.ok(Array.isArray(last.result?.tools), JSON.stringify(last));
    } finally {
      child.kill('SIGKILL');
    }
  });
}

function dechunk(body) {
  const parts = [];
  let rest = body;
  for (;;) {
    const i = rest.indexOf('\r\n');
    if (i < 0) break;
    const size = parseInt(rest.subarray(0, i).toString('latin1').trim(), 16);
    if (!size) break;
    parts.push(rest.subarray(i + 2, i + 2 + size));
    rest = rest.subarray(i + 2 + size + 2);
  }
  return Buffer.concat(parts);
}

/** One raw HTTP/1.1 request on a fresh connection: `{ status, body }` (de-chunked). */
function exchange(host, port, method, headers, body) {
  let head = `${method} /mcp HTTP/1.1\r\n`;
  if (!headers.some(([k]) => k.toLowerCase() === 'host')) head += `Host: ${host}:${port}\r\n`;
  for (const [k, v] of headers) head += `${k}: ${v}\r\n`;
  if (body) head += `Content-Length: ${body.length}\r\n`;
  head += 'Connection: close\r\n\r\n';
  return new Promise((resolve, reject) => {
    const chunks = [];
    const sock = net.connect(port, host, () => {
      sock.write(head);
      if (body) sock.write(body);
    });
    sock.setTimeout(20000, () => sock.destroy(new Error('no answer within 20 s')));
    sock.on('data', (d) => chunks.push(d));
    sock.on('error', (e) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? null : reject(e)));
    sock.on('close', () => {
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no complete response: ${raw.toString('latin1').slice(0, 200)}`));
      const lines = raw.subarray(0, split).toString('latin1').split('\r\n');
      let rest = raw.subarray(split + 4);
      if (lines.some((l) => /^transfer-encoding:.*chunked/i.test(l))) rest = dechunk(rest);
      resolve({ status: Number(lines[0].split(' ')[1]), body: rest });
    });
  });
}

test('http vectors', async () => {
  const server = await spawnListening(process.execPath, [toolbox, '--http']);
  try {
    const { hostname: host, port } = new URL(server.url);
    const doc = vectors('http.json');
    const failures = [];
    for (const c of doc.cases) {
      const body = c.body ? toBytes(c.body) : null;
      const { status, body: got } = await exchange(host, Number(port), c.method, c.headers, body);
      const e = c.expect;
      const text = got.toString('utf8').slice(0, 300);
      if (status !== e.status) {
        failures.push(`${c.name}: status ${status}, expected ${e.status}: ${text}`);
        continue;
      }
      if (e.empty && got.length) failures.push(`${c.name}: expected no body, got ${text}`);
      if ('code' in e || 'isError' in e) {
        let v;
        try {
          v = JSON.parse(got.toString('utf8'));
        } catch {
          failures.push(`${c.name}: not JSON: ${text}`);
          continue;
        }
        const matches = 'code' in e ? v.error?.code === e.code : v.result?.isError === true;
        if (!matches || ('id' in e && v.id !== e.id)) {
          failures.push(`${c.name}: expected ${JSON.stringify(e)}, got ${text}`);
        }
      }
    }
    const headers = [['Accept', 'application/json, text/event-stream'], ['Content-Type', 'application/json'],
      ['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'tools/list']];
    const alive = await exchange(host, Number(port), 'POST', headers, Buffer.from(JSON.stringify(ALIVE)));
    assert.deepEqual(failures, [], `${failures.length} of ${doc.cases.length} cases failed`);
    assert.equal(alive.status, 200, alive.body.toString());
  } finally {
    await server.stop();
  }
});
