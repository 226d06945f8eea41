// Resources, prompts, completion and client input from JS handlers: a Node server
// (servers/features.mjs) driven by the official TypeScript SDK v2 client
// (tests/interop/ts/sdk_features_client.mjs) over stdio and HTTP on both lineages, and by our
// own Client; plus the registration API in-process.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client, Server, Registry, McpError, InputRequired, InvalidInput, ErrorCode } from '../lib/mcpcore.js';
import { here, repo, run, spawnListening, textOf } from './helpers.mjs';

const ts = path.join(repo, 'tests', 'interop', 'ts');
const node = process.execPath;
const features = path.join(here, 'servers', 'features.mjs');

/** What the SDK must observe on both lineages and transports (as in tests/rust/interop_sdk_clients.rs). */
function assertCommon(r) {
  assert.deepEqual(r.resources, ['test://boom', 'test://static-binary', 'test://static-text', 'test://watched-resource']);
  assert.equal(r.static_text, 'This is the content of the static text resource.');
  assert.equal(r.template, '42');
  assert.deepEqual(r.templates, ['test://template/{id}/data']);
  assert.deepEqual(r.prompts, ['test_input_required_result_prompt', 'test_prompt_with_arguments']);
  assert.equal(r.prompt_text, "Prompt with arguments: arg1='x', arg2='y'");
  assert.deepEqual(r.completion, ['test', 'testValue1']);
  assert.equal(r.elicitation, 'Hello, Ann!');
  assert.equal(r.sampling, 'The model said: re: What is the capital of France?');
  for (const part of ['user_name: User response: accept', 'greeting: model sdk-model', 'client_roots: 1 root(s)']) {
    assert.ok(r.multiple.includes(part), `multiple lacks ${part}: ${r.multiple}`);
  }
  assert.ok(r.multi_round.startsWith('Step 1: User response: accept') && r.multi_round.includes('; step 2: '), r.multi_round);
  assert.ok(r.input_prompt.includes('tea'), r.input_prompt);
}

describe('resources, prompts and client input with the TypeScript SDK v2 client', () => {
  before(() => {
    assert.ok(existsSync(path.join(ts, 'node_modules', '@modelcontextprotocol', 'client')), 'run npm ci in tests/interop/ts');
  });

  for (const transport of ['stdio', 'http']) {
    for (const mode of ['legacy', 'modern']) {
      test(`${mode} over ${transport}`, async () => {
        const script = path.join(ts, 'sdk_features_client.mjs');
        const srv = transport === 'http' ? await spawnListening(node, [features, '--http']) : undefined;
        try {
          const target = srv ? ['--url', srv.url] : ['--stdio', node, features];
          const out = await run(node, [script, '--mode', mode, ...target]);
          assert.equal(out.code, 0, out.stderr);
          const r = JSON.parse(out.stdout.trim());
          assertCommon(r);
          if (mode === 'legacy') {
            assert.equal(r.protocolVersion, '2025-11-25');
            assert.equal(r.updated, 'test://watched-resource');
          } else {
            assert.equal(r.protocolVersion, '2026-07-28');
            assert.match(r.multi_round, /\(state \{"round":1\}\)$/);
            assert.deepEqual(r.events, ['notifications/resources/updated', 'notifications/tools/list_changed']);
          }
        } finally {
          await srv?.stop();
        }
      });
    }
  }
});

describe('resources, prompts and completion with our Client', () => {
  for (const lineage of ['legacy', 'modern']) {
    test(`${lineage}: reads, renders, completes; a throwing reader is -32603 and the server keeps serving`, async () => {
      const c = await Client.connectStdio(node, [features], { lineage });
      try {
        await assert.rejects(c.request('resources/read', { uri: 'test://boom' }), (e) => {
          assert.ok(e instanceof McpError);
          assert.equal(e.code, ErrorCode.INTERNAL_ERROR);
          assert.match(e.message, /the reader failed/);
          return true;
        });
        const blob = await c.request('resources/read', { uri: 'test://static-binary' });
        assert.deepEqual(blob.contents, [{ uri: 'test://static-binary', mimeType: 'image/png', blob: 'iVBORw==' }]);
        const t = await c.request('resources/read', { uri: 'test://template/7/data' });
        assert.equal(t.contents[0].mimeType, 'application/json');
        assert.deepEqual(JSON.parse(t.contents[0].text), { id: '7', templateTest: true, data: 'Data for ID: 7' });
        const p = await c.request('prompts/get', { name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
        assert.deepEqual(p.messages, [{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='a', arg2='b'" } }]);
        const byFn = await c.request('completion/complete', {
          ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
          argument: { name: 'arg2', value: 'y' },
        });
        assert.deepEqual(byFn.completion.values, ['y']);
        const byList = await c.request('completion/complete', {
          ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
          argument: { name: 'id', value: '12' },
        });
        assert.deepEqual(byList.completion.values, ['123']);
      } finally {
        await c.close();
      }
    });
  }

  test('modern, no elicitation capability: -32021 stays a JSON-RPC error with its data', async () => {
    const c = await Client.connectStdio(node, [features], { lineage: 'modern' });
    try {
      const caps = JSON.parse(textOf(await c.callTool('test_client_capabilities')));
      assert.equal(caps.elicitation, undefined);
      await assert.rejects(c.callTool('test_input_required_result_elicitation'), (e) => {
        assert.equal(e.code, ErrorCode.MISSING_REQUIRED_CLIENT_CAPABILITY);
        assert.ok(e.data.requiredCapabilities.elicitation, JSON.stringify(e.data));
        return true;
      });
    } finally {
      await c.close();
    }
  });
});

describe('the resource and prompt API', () => {
  test('registration returns descriptors; removal; bad input is InvalidInput', () => {
    const s = new Server();
    assert.deepEqual(s.resource('memo://a', { description: 'A memo', mimeType: 'text/plain' }, () => 'a'), {
      uri: 'memo://a', name: 'memo://a', description: 'A memo', mimeType: 'text/plain',
    });
    assert.deepEqual(s.resource('users://{id}', { name: 'user' }, ({ id }) => id), { uriTemplate: 'users://{id}', name: 'user' });
    assert.throws(() => s.resource('memo://a', () => 'again'), InvalidInput);
    assert.throws(() => s.resource('users://{id}/x', { complete: { nope: ['1'] } }, () => ''), InvalidInput);
    assert.throws(() => s.resource('memo://b', { complete: { x: ['1'] } }, () => ''), InvalidInput);
    assert.deepEqual(s.prompt('p', { arguments: [{ name: 'x', required: true }] }, ({ x }) => x), {
      name: 'p', arguments: [{ name: 'x', required: true }],
    });
    assert.throws(() => s.prompt('p', () => 'again'), InvalidInput);
    assert.equal(s.removeResource('memo://a'), true);
    assert.equal(s.removeResource('users://{id}'), true);
    assert.equal(s.removeResource('users://{id}'), false);
    assert.equal(s.removePrompt('p'), true);
    assert.equal(s.removePrompt('p'), false);
    s.notifyResourceUpdated('memo://a'); // no subscriber: a no-op
  });

  test('InputRequired is an McpError; input outside an MCP request fails the call', async () => {
    assert.ok(new InputRequired('x') instanceof McpError);
    const r = new Registry();
    r.tool('ask', {}, async (_a, ctx) => (await ctx.elicit('k', 'Name?', { type: 'object', properties: {} })).action);
    // The rejection the tool let through is a failure of the tool (mcpcore's own error class:
    // a failure, not a JSON-RPC error; as in Python).
    const out = await r.callTool('ask');
    assert.equal(out.isError, true);
    assert.match(out.content[0].text, /^ToolError: client input is unavailable/);
  });
});
