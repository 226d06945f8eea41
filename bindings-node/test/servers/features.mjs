#!/usr/bin/env node
// The conformance fixture's resources, prompts, completion and client-input tools, written with
// the Node API (the subset tests/interop/ts/sdk_features_client.mjs drives), plus `test://boom`,
// a resource whose reader throws.
//
//   node features.mjs            # stdio
//   node features.mjs --http     # HTTP on 127.0.0.1, free port; prints "listening on URL"
import { Server } from '../../lib/mcpcore.js';

const server = new Server({ name: 'features-node', version: '0.1.0' });
const WATCHED = 'test://watched-resource';

server.resource('test://static-text', { name: 'static-text', mimeType: 'text/plain' }, () =>
  'This is the content of the static text resource.'
);
server.resource('test://static-binary', { name: 'static-binary', mimeType: 'image/png' }, () =>
  Buffer.from([0x89, 0x50, 0x4e, 0x47])
);
server.resource(WATCHED, { name: 'watched-resource', mimeType: 'text/plain' }, () => 'Watched resource content.');
server.resource('test://boom', { name: 'boom' }, () => {
  throw new Error('the reader failed');
});
server.resource(
  'test://template/{id}/data',
  { name: 'template-data', description: 'Data for an id', mimeType: 'application/json', complete: { id: ['1', '2', '3', '123'] } },
  ({ id }) => ({ id, templateTest: true, data: `Data for ID: ${id}` })
);

server.prompt(
  'test_prompt_with_arguments',
  {
    description: 'A prompt with two required arguments',
    arguments: [{ name: 'arg1', required: true }, { name: 'arg2', required: true }],
    complete: { arg1: ['test', 'testValue1', 'paris'], arg2: (value) => ['x', 'y'].filter((v) => v.startsWith(value)) },
  },
  ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`
);
server.prompt('test_input_required_result_prompt', { description: 'Asks for context first' }, async (_args, ctx) => {
  const r = await ctx.elicit('user_context', 'What context should the prompt use?', {
    type: 'object', properties: { context: { type: 'string' } }, required: ['context'],
  });
  return `Use this context: ${r.content?.context ?? ''}`;
});

const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const describe = (r) => `User response: ${r.action}, ${JSON.stringify(r.content ?? null)}`;

server.tool('test_input_required_result_elicitation', {}, async (_args, ctx) => {
  const r = await ctx.elicit('user_name', 'What is your name?', nameSchema);
  return `Hello, ${r.action === 'accept' ? r.content.name : '(none)'}!`;
});
server.tool('test_input_required_result_sampling', {}, async (_args, ctx) => {
  const m = await ctx.sample('capital_question', 'What is the capital of France?', { maxTokens: 100, systemPrompt: 'Answer briefly.' });
  return `The model said: ${m.content.text}`;
});
server.tool('test_input_required_result_multiple_inputs', {}, async (_args, ctx) => {
  const answers = await ctx.input({
    user_name: { method: 'elicitation/create', params: { message: 'What is your name?', requestedSchema: nameSchema } },
    greeting: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Write a short greeting.' } }], maxTokens: 100 } },
    client_roots: { method: 'roots/list', params: {} },
  });
  return [
    `client_roots: ${answers.client_roots.roots.length} root(s)`,
    `greeting: model ${answers.greeting.model}: ${JSON.stringify(answers.greeting.content)}`,
    `user_name: ${describe(answers.user_name)}`,
  ].join('; ');
});
server.tool('test_input_required_result_multi_round', {}, async (_args, ctx) => {
  // requestState survives the rounds (2026-07-28); legacy sessions have none and just await.
  if (ctx.requestState === undefined) ctx.setRequestState({ round: 1 });
  const first = await ctx.elicit('step1', 'Step 1: your name?', { type: 'object', properties: { name: { type: 'string' } } });
  const second = await ctx.elicit('step2', 'Step 2: your city?', { type: 'object', properties: { city: { type: 'string' } } });
  const state = ctx.protocolVersion === '2026-07-28' ? ` (state ${JSON.stringify(ctx.requestState)})` : '';
  return `Step 1: ${describe(first)}; step 2: ${describe(second)}${state}`;
});
server.tool('test_input_required_result_list_roots', {}, async (_args, ctx) => {
  const roots = await ctx.listRoots('client_roots');
  return `Client roots: ${roots.map((r) => r.uri).join(', ')}`;
});
server.tool('test_client_capabilities', {}, (_args, ctx) => ctx.clientCapabilities ?? {});
server.tool('test_trigger_resource_update', { inputSchema: { type: 'object', properties: { uri: { type: 'string' } } } }, ({ uri }) => {
  server.notifyResourceUpdated(uri ?? WATCHED);
  return 'Resource update triggered';
});
let extra = 0;
server.tool('test_trigger_tool_change', {}, () => {
  const name = `test_extra_${++extra}`;
  server.tool(name, {}, () => 'extra');
  return `Added ${name}`;
});

if (process.argv.includes('--http')) {
  const serving = await server.serveHttp({ port: 0 });
  console.log(`listening on ${serving.url}`);
  await serving.wait();
} else {
  await server.serveStdio();
}
