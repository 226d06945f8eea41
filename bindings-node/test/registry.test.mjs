// The registry in-process: schemas (JSON Schema and zod 4 via Standard Schema), return value
// conversion, errors, and remote tools mixed with local ones under each collision policy.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
import { Registry, Server, Client, McpError, InvalidInput, RequestTimeout, toJsonSchema } from '../lib/mcpcore.js';
import { rustBin, textOf, toolbox } from './helpers.mjs';

describe('local tools', () => {
  test('return values become content', async () => {
    const r = new Registry();
    r.tool('text', {}, () => 'plain');
    r.tool('obj', { outputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, async () => ({ n: 1 }));
    r.tool('raw', {}, () => ({ content: [{ type: 'text', text: 'mine' }], isError: true }));
    r.tool('nothing', () => undefined);
    r.tool('num', {}, () => 42);
    assert.deepEqual(r.names, ['nothing', 'num', 'obj', 'raw', 'text']);
    assert.deepEqual(await r.callTool('text'), { content: [{ type: 'text', text: 'plain' }] });
    const obj = await r.callTool('obj');
    assert.deepEqual(obj.structuredContent, { n: 1 });
    assert.equal(textOf(obj), '{"n":1}');
    assert.deepEqual(await r.callTool('raw'), { content: [{ type: 'text', text: 'mine' }], isError: true });
    assert.deepEqual((await r.callTool('nothing')).content, []);
    assert.equal(textOf(await r.callTool('num')), '42');
    assert.deepEqual(r.listTools().find((t) => t.name === 'obj').outputSchema, {
      type: 'object',
      properties: { n: { type: 'number' } },
    });
  });

  test('a returned string crosses as itself: sync, async, large and not ASCII', async () => {
    // The wrapper hands a string to the engine as `[text]` (no JSON pass); every form of it
    // must come out as the same text block, byte for byte.
    const r = new Registry();
    const big = 'é😀"\\\n\u0000x'.repeat(100_000);
    r.tool('sync', {}, () => big);
    r.tool('async', {}, async () => big);
    r.tool('empty', {}, () => '');
    // A handler's own one-string array is a list value, not the wrapper's `[text]`.
    r.tool('arr', {}, () => ['a']);
    assert.equal(textOf(await r.callTool('sync')), big);
    assert.equal(textOf(await r.callTool('async')), big);
    assert.deepEqual(await r.callTool('empty'), { content: [{ type: 'text', text: '' }] });
    assert.deepEqual(await r.callTool('arr'), { content: [{ type: 'text', text: '["a"]' }] });
    // What the wrapper hands the engine: the text itself, and the envelope for anything else.
    const { nativeCallback } = require('../lib/tools.js');
    assert.deepEqual(nativeCallback(() => 'x')('{}', null), ['x']);
    assert.equal(nativeCallback(() => ['x'])('{}', null), '{"value":["x"]}');
    // A lone surrogate is not text: refused as the envelope's JSON always was, not altered.
    r.tool('lone', {}, () => 'a\uD800b');
    const lone = await r.callTool('lone');
    assert.equal(lone.isError, true);
    assert.match(textOf(lone), /invalid envelope/);
  });

  test('structuredContent that breaks outputSchema is an isError result', async () => {
    const r = new Registry();
    r.tool('bad', { outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } }, () => ({ m: 1 }));
    assert.equal((await r.callTool('bad')).isError, true);
  });

  test('throws, rejections and McpErrors', async () => {
    const r = new Registry();
    r.tool('sync', {}, () => {
      throw new RangeError('sync throw');
    });
    r.tool('async', {}, async () => {
      throw new Error('async throw');
    });
    r.tool('str', {}, () => Promise.reject('just a string'));
    r.tool('rpc', {}, () => {
      throw new McpError('nope', { code: -32001, data: [1] });
    });
    assert.deepEqual(await r.callTool('sync'), { content: [{ type: 'text', text: 'RangeError: sync throw' }], isError: true });
    assert.equal(textOf(await r.callTool('async')), 'Error: async throw');
    assert.equal(textOf(await r.callTool('str')), 'just a string');
    await assert.rejects(r.callTool('rpc'), (e) => e instanceof McpError && e.code === -32001 && e.data[0] === 1);
    await assert.rejects(r.callTool('missing'), (e) => e instanceof McpError && e.code === -32602);
  });

  test('in-process timeout', async () => {
    const r = new Registry();
    r.tool('slow', {}, () => new Promise((res) => setTimeout(() => res('late'), 300)));
    await assert.rejects(r.callTool('slow', {}, { timeoutMs: 30 }), RequestTimeout);
  });

  test('bad registrations are InvalidInput', () => {
    const r = new Registry();
    r.tool('ok', {}, () => 'x');
    assert.throws(() => r.tool('ok', {}, () => 'y'), InvalidInput);
    assert.throws(() => r.tool('bad name!', {}, () => 'y'), InvalidInput);
    assert.throws(() => r.tool('nohandler', {}), InvalidInput);
    assert.throws(() => r.tool('badschema', { inputSchema: 'string' }, () => 'x'), InvalidInput);
    assert.equal(r.removeTool('ok'), true);
    assert.equal(r.removeTool('ok'), false);
  });

  test('arguments are validated against the JSON Schema', async () => {
    const r = new Registry();
    r.tool('sq', { inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } }, ({ x }) => String(x * x));
    assert.equal(textOf(await r.callTool('sq', { x: 3 })), '9');
    // As a server of the newest revision answers: a result the model can read.
    const bad = await r.callTool('sq', { x: 'three' });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /^Invalid arguments for tool sq: \/x: /);
  });

  test('many concurrent async calls overlap', async () => {
    const r = new Registry();
    r.tool('wait', {}, ({ i }) => new Promise((res) => setTimeout(() => res(String(i)), 100)));
    const t0 = Date.now();
    const out = await Promise.all(Array.from({ length: 50 }, (_, i) => r.callTool('wait', { i })));
    assert.ok(Date.now() - t0 < 1500, 'calls ran concurrently');
    assert.deepEqual(out.map(textOf), Array.from({ length: 50 }, (_, i) => String(i)));
  });
});

describe('zod 4 / Standard Schema', () => {
  test('schemas are converted with their own JSON Schema export and parse arguments', async () => {
    const r = new Registry();
    const input = z.object({ name: z.string(), times: z.number().int().default(2) });
    r.tool(
      'greet',
      { description: 'Greets.', inputSchema: input, outputSchema: z.object({ greeting: z.string() }) },
      ({ name, times }) => ({ greeting: `hi ${name} `.repeat(times).trim() })
    );
    const tool = r.listTools()[0];
    assert.deepEqual(tool.inputSchema.required, ['name']);
    assert.equal(tool.inputSchema.properties.times.default, 2);
    assert.deepEqual(tool.outputSchema.required, ['greeting']);
    const res = await r.callTool('greet', { name: 'ann' });
    assert.deepEqual(res.structuredContent, { greeting: 'hi ann hi ann' });
    const missing = await r.callTool('greet', { times: 1 });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /"name" is a required property/);
  });
  test('a refinement the JSON Schema cannot express gives isError', async () => {
    const r = new Registry();
    r.tool('even', { inputSchema: z.object({ n: z.number().refine((n) => n % 2 === 0, 'must be even') }) }, ({ n }) => String(n));
    assert.equal(textOf(await r.callTool('even', { n: 2 })), '2');
    const odd = await r.callTool('even', { n: 3 });
    assert.equal(odd.isError, true);
    assert.match(textOf(odd), /must be even/);
  });
  test('toJsonSchema passes JSON Schema through and rejects exporters it does not know', () => {
    const s = { type: 'object', properties: {} };
    assert.equal(toJsonSchema(s), s);
    const opaque = { '~standard': { version: 1, vendor: 'x', validate: (v) => ({ value: v }) } };
    assert.throws(() => toJsonSchema(opaque), InvalidInput);
  });
});

describe('Standard Schema libraries: zod 3 and 4, valibot, arktype', () => {
  const libs = {
    'zod 3': () => {
      const z3 = require('zod3');
      const geo = z3.object({ lat: z3.number(), lon: z3.number() });
      return z3.object({ name: z3.string().describe('the name'), home: geo, work: geo.optional(), n: z3.number().int().default(1) });
    },
    'zod 4': () => {
      const geo = z.object({ lat: z.number(), lon: z.number() }).meta({ id: 'Geo' }); // registered: zod writes a $ref
      return z.object({ name: z.string().describe('the name'), home: geo, work: geo.optional(), n: z.number().int().default(1) });
    },
    valibot: () => {
      const v = require('valibot');
      const geo = v.object({ lat: v.number(), lon: v.number() });
      return v.object({ name: v.pipe(v.string(), v.description('the name')), home: geo, work: v.optional(geo), n: v.optional(v.number(), 1) });
    },
    arktype: () => {
      const { type } = require('arktype');
      const geo = type({ lat: 'number', lon: 'number' });
      return type({ name: type('string').describe('the name'), home: geo, 'work?': geo, 'n?': 'number' });
    },
  };
  for (const [lib, make] of Object.entries(libs)) {
    test(`${lib}: a JSON Schema with no $ref, arguments checked by the engine and parsed by the library`, async () => {
      const r = new Registry();
      r.tool('where', { inputSchema: make() }, ({ name, home }) => `${name} at ${home.lat},${home.lon}`);
      const { inputSchema } = r.listTools()[0];
      assert.ok(!JSON.stringify(inputSchema).includes('$ref'), JSON.stringify(inputSchema));
      assert.ok(!('$schema' in inputSchema));
      assert.deepEqual(inputSchema.properties.home.required, ['lat', 'lon']);
      assert.equal(inputSchema.properties.name.description, 'the name');
      assert.ok(inputSchema.required.includes('name') && !inputSchema.required.includes('work'));
      assert.equal(textOf(await r.callTool('where', { name: 'ann', home: { lat: 1, lon: 2 } })), 'ann at 1,2');
      // Refused by the engine before the handler: an isError result the model can read (SEP-1303).
      const bad = await r.callTool('where', { name: 'ann', home: { lat: 1 } });
      assert.equal(bad.isError, true);
      assert.match(textOf(bad), /^Invalid arguments for tool where: \/home: /);
    });
  }
  test('refs: true keeps the definitions', () => {
    const r = new Registry();
    const geo = z.object({ lat: z.number() }).meta({ id: 'GeoKept' });
    r.tool('kept', { inputSchema: z.object({ a: geo, b: geo }), refs: true }, () => '');
    assert.match(JSON.stringify(r.listTools()[0].inputSchema), /\$ref/);
  });
});

describe('remote tools in a registry', () => {
  test('local and remote tools, called alike and served', async () => {
    const r = new Registry();
    r.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => `local ${text}`);
    const rust = await Client.connectStdio(rustBin('echo_server'));
    await assert.rejects(r.connect('rust', rust), (e) => e instanceof McpError && e.kind === 'invalid_input');
    const done = await r.connect('rust', rust, { collision: 'prefix' });
    assert.deepEqual(done, [
      { status: 'registered', name: 'add' },
      { status: 'renamed', requested: 'echo', name: 'rust_echo' },
    ]);
    assert.deepEqual(r.servers, ['rust']);
    assert.equal(textOf(await r.callTool('rust_echo', { text: 'a' })), 'a');
    assert.equal(textOf(await r.callTool('echo', { text: 'a' })), 'local a');

    const node = await Client.connectStdio(process.execPath, [toolbox]);
    const skipped = await r.connect('node', node, { collision: 'skip' });
    assert.ok(skipped.some((s) => s.status === 'skipped' && s.name === 'echo'));
    assert.ok(skipped.some((s) => s.status === 'registered' && s.name === 'boom'));
    assert.equal((await r.callTool('boom')).isError, true);
    await assert.rejects(r.connect('bad', node, { collision: 'whatever' }), InvalidInput);

    // serve the mixed registry and call through it
    const server = new Server({ name: 'proxy', version: '1', registry: r });
    const serving = await server.serveHttp();
    const c = await Client.connectHttp(serving.url);
    const names = (await c.listTools()).map((t) => t.name);
    assert.ok(names.includes('rust_echo') && names.includes('echo') && names.includes('slow'));
    assert.deepEqual((await c.callTool('add', { a: 1, b: 2 })).structuredContent, { sum: 3 });
    assert.equal(textOf(await c.callTool('rust_echo', { text: 'via proxy' })), 'via proxy');
    await assert.rejects(c.callTool('rpc'), (e) => e.code === -32042);
    await c.close();
    await serving.shutdown();

    const removed = await r.disconnect('rust');
    assert.deepEqual(removed.sort(), ['add', 'rust_echo']);
    await r.disconnect('node');
    assert.deepEqual(r.names, ['echo']);
  });
});

describe('loadConfig', () => {
  test('an mcpServers file (VS Code shape, ${env:VAR}) loads beside the local tools', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = (await import('node:path')).default;
    process.env.MCPCORE_TEST_ECHO_SERVER = rustBin('echo_server');
    const r = new Registry();
    r.tool('local', {}, () => 'here');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'mcpcore-')), 'mcp.json');
    writeFileSync(file, JSON.stringify({ servers: { rust: { type: 'stdio', command: '${env:MCPCORE_TEST_ECHO_SERVER}' } } }));
    assert.deepEqual(await r.loadConfig(file), ['rust']);
    assert.deepEqual(r.names, ['local', 'rust__add', 'rust__echo']);
    assert.equal(textOf(await r.callTool('rust__echo', { text: 'from the file' })), 'from the file');
    await assert.rejects(r.loadConfig({ mcpServers: { x: { command: '${env:MCPCORE_SURELY_UNSET}' } } }),
      (e) => e instanceof InvalidInput && /MCPCORE_SURELY_UNSET/.test(e.message));
    assert.deepEqual((await r.disconnect('rust')).sort(), ['rust__add', 'rust__echo']);
  });
});
