// The Node client's typed API against mcpcore servers written with the Node API: resources,
// templates, prompts, completion (with their page iterators), input answered by JS handlers on
// both lineages (only the given capabilities declared), notifications (the GET stream, a listen
// stream on 2026-07-28), tasks (fixture_server
// --tasks), one command line for connectStdio, a 401 with its challenge, and the lifespan.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, Server, ResourceNotFound, AuthError, RequestCancelled } from '../lib/mcpcore.js';
import { here, rustBin, spawnListening, textOf } from './helpers.mjs';

const features = path.join(here, 'servers', 'features.mjs');

/** A queue of values, awaited one at a time (bounded). */
function queue() {
  const items = [];
  const waiting = [];
  return {
    push(v) {
      const w = waiting.shift();
      if (w) w(v);
      else items.push(v);
    },
    next() {
      if (items.length) return Promise.resolve(items.shift());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('nothing arrived')), 10000);
        waiting.push((v) => {
          clearTimeout(timer);
          resolve(v);
        });
      });
    },
  };
}

describe('the client', () => {
  for (const lineage of ['modern', 'legacy']) {
    test(`typed catalog methods (${lineage})`, async () => {
      const served = await spawnListening('node', [features, '--http']);
      const c = await Client.connectHttp(served.url, { lineage });
      try {
        assert.ok('resources' in c.serverCapabilities && 'prompts' in c.serverCapabilities);
        const resources = await c.listResources();
        assert.ok(resources.some((r) => r.uri === 'test://static-text'));
        const paged = [];
        for await (const r of c.resources()) paged.push(r);
        assert.deepEqual(paged, resources);
        assert.ok((await c.listResourceTemplates()).some((t) => t.uriTemplate === 'test://template/{id}/data'));
        assert.deepEqual(await c.readResource('test://static-text'), [
          { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
        ]);
        await assert.rejects(c.readResource('test://nothing'), ResourceNotFound);
        assert.ok((await c.listPrompts()).some((p) => p.name === 'test_prompt_with_arguments'));
        const got = await c.getPrompt('test_prompt_with_arguments', { arg1: 'a', arg2: 'b' });
        assert.equal(got.messages[0].content.text, "Prompt with arguments: arg1='a', arg2='b'");
        assert.deepEqual(await c.complete({ prompt: 'test_prompt_with_arguments' }, 'arg1', 'te'), ['test', 'testValue1']);
        assert.deepEqual(await c.complete({ resource: 'test://template/{id}/data' }, 'id', '12'), ['123']);
        await c.ping();
        await c.setLogLevel('error');
      } finally {
        await c.close();
        await served.stop();
      }
    });

    test(`JS handlers answer the server (${lineage})`, async () => {
      const asked = [];
      const options = {
        lineage,
        onElicitation: (params) => {
          asked.push('elicitation');
          return params.message.includes('city') ? { city: 'Oslo' } : { name: 'Ann' };
        },
        onSampling: async () => {
          asked.push('sampling');
          return 'Paris';
        },
        roots: async () => {
          asked.push('roots');
          return ['file:///work', { uri: 'file:///tmp', name: 'tmp' }];
        },
      };
      const c = await Client.connectStdio(`node ${features}`, options);
      try {
        assert.equal(textOf(await c.callTool('test_input_required_result_elicitation')), 'Hello, Ann!');
        assert.equal(textOf(await c.callTool('test_input_required_result_sampling')), 'The model said: Paris');
        assert.equal(textOf(await c.callTool('test_input_required_result_list_roots')), 'Client roots: file:///work, file:///tmp');
        const rounds = textOf(await c.callTool('test_input_required_result_multi_round'));
        assert.match(rounds, /Step 1: User response: accept, \{"name":"Ann"\}; step 2: User response: accept, \{"city":"Oslo"\}/);
        const caps = (await c.callTool('test_client_capabilities')).structuredContent;
        assert.ok(caps.elicitation && caps.sampling && caps.roots, JSON.stringify(caps));
        assert.deepEqual([...new Set(asked)].sort(), ['elicitation', 'roots', 'sampling']);
        c.rootsChanged();
      } finally {
        await c.close();
      }
      // Only what is given is declared.
      const bare = await Client.connectStdio(`node ${features}`, { lineage, onSampling: () => 'x' });
      try {
        const caps = (await bare.callTool('test_client_capabilities')).structuredContent;
        assert.ok(caps.sampling && !caps.elicitation && !caps.roots, JSON.stringify(caps));
      } finally {
        await bare.close();
      }
    });
  }

  test('list changes and resource updates reach their handlers (legacy Streamable HTTP: the GET stream)', async () => {
    const served = await spawnListening('node', [features, '--http']);
    const c = await Client.connectHttp(served.url, { lineage: 'legacy' });
    try {
      const seen = queue();
      c.onToolsChanged(() => seen.push('tools'));
      c.onResourceUpdated((uri) => seen.push(`updated ${uri}`));
      await c.subscribe('test://watched-resource');
      await c.callTool('test_trigger_resource_update', {});
      assert.equal(await seen.next(), 'updated test://watched-resource');
      const before = (await c.listTools()).length;
      await c.callTool('test_trigger_tool_change', {});
      assert.equal(await seen.next(), 'tools');
      assert.equal((await c.listTools()).length, before + 1, 'the tools cache was dropped');
      const raw = queue();
      c.onNotification((method, params) => raw.push([method, params]));
      await c.callTool('test_trigger_resource_update', {});
      assert.deepEqual(await raw.next(), ['notifications/resources/updated', { uri: 'test://watched-resource' }]);
    } finally {
      await c.close();
      await served.stop();
    }
  });

  for (const via of ['stdio', 'http']) {
    test(`2026-07-28 handlers hear through the client's own listen stream (${via})`, async () => {
      const served = via === 'http' ? await spawnListening('node', [features, '--http']) : null;
      const c = served ? await Client.connectHttp(served.url, { lineage: 'modern' }) : await Client.connectStdio(`node ${features}`, { lineage: 'modern' });
      try {
        const seen = queue();
        c.onToolsChanged(() => seen.push('tools'));
        c.onResourceUpdated((uri) => seen.push(`updated ${uri}`));
        await c.subscribe('test://watched-resource');
        // What the server agreed to send: what the handlers want, nothing else.
        assert.deepEqual(await c.notificationsReady(), { toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'] });
        await c.callTool('test_trigger_resource_update', {});
        assert.equal(await seen.next(), 'updated test://watched-resource');
        const before = (await c.listTools()).length;
        await c.callTool('test_trigger_tool_change', {});
        assert.equal(await seen.next(), 'tools');
        assert.equal((await c.listTools()).length, before + 1, 'the tools cache was dropped');
        await c.unsubscribe('test://watched-resource');
        assert.deepEqual(await c.notificationsReady(), { toolsListChanged: true });
        const raw = queue();
        c.onNotification((method, params) => raw.push([method, params]));
        await c.subscribe('test://watched-resource');
        await c.callTool('test_trigger_resource_update', {});
        const [method, params] = await raw.next();
        assert.equal(method, 'notifications/resources/updated');
        assert.equal(params.uri, 'test://watched-resource');
      } finally {
        await c.close();
        await served?.stop();
      }
      await assert.rejects(c.notificationsReady(), 'closed with the client');
    });
  }

  test('tasks through their handle (the Tasks extension)', async () => {
    const c = await Client.connectStdio(rustBin('fixture_server'), ['--tasks'], { onElicitation: () => ({ name: 'Ada' }), timeoutMs: 10000 });
    try {
      const task = await c.callTool('task_sleep', { ms: 50 }, { task: true });
      assert.ok(task.id);
      assert.equal((await task.status()).taskId, task.id);
      assert.equal(textOf(await task.result()), 'slept');
      assert.equal((await task.status()).status, 'completed');
      assert.equal(textOf(await (await c.callTool('task_ask', {}, { task: true })).result()), 'hello Ada');
      const long = await c.callTool('task_sleep', { ms: 60000 }, { task: true });
      await long.cancel();
      await assert.rejects(long.result(), RequestCancelled);
      assert.equal(textOf(await c.callTool('task_only')), 'only');
    } finally {
      await c.close();
    }
  });

  test('one command line, a probe timeout, and the version after close', async () => {
    const c = await Client.connectStdio(`node ${features}`, { probeTimeoutMs: 2000 });
    await c.close();
    assert.equal(c.protocolVersion, '2026-07-28');
    await assert.rejects(Client.connectStdio(`node '${features}`), /unbalanced quotes/);
  });

  test('a 401 rejects with AuthError and the challenge', async () => {
    const server = new Server({ name: 'protected' });
    server.tool('echo', {}, ({ text }) => text);
    const auth = { resource: 'http://127.0.0.1/mcp', authorizationServers: ['https://as.example'], verify: () => null };
    const serving = await server.serveHttp({ auth });
    try {
      await assert.rejects(Client.connectHttp(serving.url), (e) => {
        assert.ok(e instanceof AuthError, String(e));
        assert.equal(e.httpStatus, 401);
        assert.equal(e.error, 'unauthorized');
        assert.match(e.challenge, /^Bearer .*resource_metadata=/);
        return true;
      });
    } finally {
      await serving.shutdown();
    }
  });

  test('the lifespan runs around serving and handlers see its state', async () => {
    const events = [];
    const server = new Server({
      name: 'lifespan',
      lifespan: async function* () {
        events.push('start');
        try {
          yield { db: 'connected' };
        } finally {
          events.push('stop');
        }
      },
    });
    server.tool('status', {}, (_args, ctx) => ctx.lifespan.db);
    const serving = await server.serveHttp();
    assert.deepEqual(events, ['start']);
    const c = await Client.connectHttp(serving.url);
    try {
      assert.equal(textOf(await c.callTool('status')), 'connected');
    } finally {
      await c.close();
      await serving.shutdown();
    }
    assert.deepEqual(events, ['start', 'stop']);
  });
});
