// nodeHandler() and fetchHandler() in the frameworks users run (Express, Fastify, Hono, pinned
// devDependencies), feeding the engine in process: the official TypeScript SDK client (tests/
// interop/ts/sdk_client.mjs) in both lineages, our client (2024-11-05 SSE under an Express
// mount), and a client that goes away cancelling its call.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import path from 'node:path';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { Server, Client } from '../lib/mcpcore.js';
import { repo, run, textOf } from './helpers.mjs';

const sdkClient = path.join(repo, 'tests', 'interop', 'ts', 'sdk_client.mjs');

/** echo and add, shaped as the SDK interop scripts expect; `slow` resolves `aborted` when its
 * caller goes away. */
function makeServer() {
  const server = new Server({ name: 'mounted', version: '1.0' });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    ({ text }) => text);
  server.tool('add', {
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  }, ({ a, b }) => ({ sum: a + b }));
  let started;
  let aborted;
  server.started = new Promise((r) => (started = r));
  server.aborted = new Promise((r) => (aborted = r));
  server.tool('slow', {}, (_args, ctx) => {
    started();
    return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => {
      aborted('aborted');
      reject(new Error('gone'));
    }));
  });
  return server;
}

async function sdk(url, lineage) {
  const out = await run(process.execPath, [sdkClient, '--lineage', lineage, '--text', `through ${lineage}`, url]);
  assert.equal(out.code, 0, out.stderr);
  const line = JSON.parse(out.stdout.trim());
  assert.equal(line.lineage, lineage);
  assert.deepEqual(line.tools, ['add', 'echo', 'slow']);
  assert.equal(line.echo, `through ${lineage}`);
  assert.deepEqual(line.add, { sum: 5 });
}

async function goneCancels(server, url) {
  const c = await Client.connectHttp(url, { lineage: 'modern' });
  try {
    const ac = new AbortController();
    const call = c.callTool('slow', {}, { signal: ac.signal });
    await server.started;
    ac.abort();
    await assert.rejects(call);
    assert.equal(await server.aborted, 'aborted');
  } finally {
    await c.close();
  }
}

describe('Express', () => {
  const server = makeServer();
  let listener;
  let base;
  before(async () => {
    const app = express();
    app.use(express.json());
    app.get('/health', (_req, res) => res.send('ok'));
    app.all('/mcp', server.nodeHandler());
    app.use('/deep', server.nodeHandler()); // a mount: /deep/ and /deep/sse, /deep/messages
    listener = app.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    base = `http://127.0.0.1:${listener.address().port}`;
  });
  after(async () => {
    listener.closeAllConnections();
    listener.close();
    await server.close();
  });
  test('the official TypeScript client, modern', () => sdk(`${base}/mcp`, 'modern'));
  test('the official TypeScript client, legacy', () => sdk(`${base}/mcp`, 'legacy'));
  test('under app.use: the endpoint at the prefix, 2024-11-05 SSE below it', async () => {
    for (const [url, options] of [[`${base}/deep`, { lineage: 'legacy' }],
      [`${base}/deep/sse`, { transport: 'sse', protocolVersion: '2024-11-05' }]]) {
      const c = await Client.connectHttp(url, options);
      assert.equal(textOf(await c.callTool('echo', { text: url })), url);
      await c.close();
    }
    assert.equal(await (await fetch(`${base}/health`)).text(), 'ok');
  });
  test('a client that goes away cancels its call', () => goneCancels(server, `${base}/mcp`));
});

describe('Fastify', () => {
  const server = makeServer();
  let app;
  let url;
  before(async () => {
    app = Fastify();
    app.all('/mcp', server.nodeHandler());
    url = (await app.listen({ port: 0, host: '127.0.0.1' })) + '/mcp';
  });
  after(async () => {
    await app.close();
    await server.close();
  });
  test('the official TypeScript client, modern', () => sdk(url, 'modern'));
  test('our client, legacy', async () => {
    const c = await Client.connectHttp(url, { lineage: 'legacy' });
    assert.deepEqual((await c.callTool('add', { a: 1, b: 2 })).structuredContent, { sum: 3 });
    await c.close();
  });
  test('a body over maxBody is 413', async () => {
    const small = makeServer();
    const f = Fastify({ bodyLimit: 1 << 20 });
    f.all('/mcp', small.nodeHandler({ maxBody: 100 }));
    const u = (await f.listen({ port: 0, host: '127.0.0.1' })) + '/mcp';
    try {
      const r = await fetch(u, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(200) }) });
      assert.equal(r.status, 413);
    } finally {
      await f.close();
    }
  });
});

describe('Hono (fetchHandler)', () => {
  const server = makeServer();
  let listener;
  let url;
  before(async () => {
    const app = new Hono();
    const mcp = server.fetchHandler();
    app.all('/mcp', (c) => mcp(c.req.raw));
    app.all('/sse', (c) => mcp(c.req.raw));
    app.all('/messages', (c) => mcp(c.req.raw));
    listener = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await once(listener, 'listening');
    url = `http://127.0.0.1:${listener.address().port}/mcp`;
  });
  after(async () => {
    listener.closeAllConnections?.();
    listener.close();
    await server.close();
  });
  test('the official TypeScript client, modern', () => sdk(url, 'modern'));
  test('the official TypeScript client, legacy', () => sdk(url, 'legacy'));
  test('2024-11-05 SSE', async () => {
    const c = await Client.connectHttp(url.replace(/\/mcp$/, '/sse'), { transport: 'sse', protocolVersion: '2024-11-05' });
    assert.equal(textOf(await c.callTool('echo', { text: 'old' })), 'old');
    await c.close();
  });
  test('bad JSON is a JSON-RPC parse error, a foreign Origin is refused', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const r = await fetch(url, { method: 'POST', headers, body: '{not json' });
    assert.equal(r.status, 400);
    assert.equal((await r.json()).error.code, -32700);
    const o = await fetch(url, { method: 'POST', headers: { ...headers, origin: 'http://evil.example' }, body: '{}' });
    assert.equal(o.status, 403);
    // DNS rebinding: evil.example's page, its name re-pointed here, sends its own Host and Origin.
    const rebound = await new Promise((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers: { ...headers, host: 'evil.example:80', origin: 'http://evil.example:80' } }, (res) => {
        let text = '';
        res.on('data', (c) => { text += c; });
        res.on('end', () => resolve({ status: res.statusCode, text }));
      });
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(rebound.status, 403);
    assert.match(rebound.text, /allowedHosts/);
  });
  test('a client that goes away cancels its call', () => goneCancels(server, url));
});
