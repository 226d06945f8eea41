#!/usr/bin/env node
// The official TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0, pinned in
// package.json) driving an aggregating server (`mcpcore gateway`) through a plan. The
// counterpart of ../python/sdk_gateway_plan_client.py: same plan, same output keys, one JSON line.
//
// Usage: node sdk_gateway_client.mjs --mode legacy|modern --url URL --plan JSON
//
// Plan: {"calls": [[NAME, ARGS], ...], "progress": [[NAME, ARGS], ...], "reads": [URI, ...],
// "prompts": [[NAME, ARGS], ...]}. The client declares sampling, elicitation and roots: handlers
// answer real requests on a legacy session, and the SDK's MRTR driver dispatches 2026-07-28
// input_required rounds to the same handlers. A `progress` call carries an onprogress callback.
// Output: {"protocolVersion", "tools", "calls": {NAME: {"isError", "text"}}, "progress": {NAME: n},
// "asked": [...], "reads": {URI: text}, "gets": {NAME: [texts]}}.
import { Client, ProtocolError, SdkError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const MODERN = '2026-07-28';
const req = { timeout: 30_000 };

function arg(name) {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) {
    console.error(`usage: node sdk_gateway_client.mjs --mode legacy|modern --url URL --plan JSON (missing ${name})`);
    process.exit(2);
  }
  return process.argv[i + 1];
}

const blocks = (content) => (Array.isArray(content) ? content : content ? [content] : []);
const texts = (content) => blocks(content).filter((b) => b?.type === 'text').map((b) => b.text).join('\n');

function answerFor(schema) {
  const out = {};
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    if (Array.isArray(prop.enum)) out[name] = prop.enum[0];
    else if (prop.type === 'boolean') out[name] = true;
    else if (prop.type === 'number' || prop.type === 'integer') out[name] = 7;
    else out[name] = 'Ann TypeScript';
  }
  return out;
}

async function run(mode, url, plan) {
  const asked = [];
  const client = new Client(
    { name: 'mcpcore-interop-ts-gateway-client', version: '0.1.0' },
    { capabilities: { sampling: {}, elicitation: {}, roots: {} }, ...(mode === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {}) }
  );
  client.setRequestHandler('sampling/createMessage', async (request) => {
    asked.push(`sample: ${blocks(request.params.messages[0]?.content)[0]?.text ?? '?'}`);
    return { role: 'assistant', content: { type: 'text', text: 'the typescript model says hi' }, model: 'ts-model', stopReason: 'endTurn' };
  });
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(`elicit: ${request.params.message}`);
    return { action: 'accept', content: answerFor(request.params.requestedSchema) };
  });
  client.setRequestHandler('roots/list', async () => {
    asked.push('roots');
    return { roots: [{ uri: 'file:///work', name: 'work' }] };
  });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport, req);
  try {
    const out = { protocolVersion: client.getNegotiatedProtocolVersion(), calls: {}, progress: {} };
    const tools = [];
    let cursor;
    for (let i = 0; i < 100; i++) {
      const page = await client.listTools(cursor ? { cursor } : undefined, req);
      tools.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    out.tools = tools;
    for (const [name, args] of plan.calls ?? []) {
      const r = await client.callTool({ name, arguments: args }, req);
      out.calls[name] = { isError: Boolean(r.isError), text: texts(r.content) };
    }
    for (const [name, args] of plan.progress ?? []) {
      let seen = 0;
      const r = await client.callTool({ name, arguments: args }, { ...req, onprogress: () => (seen += 1) });
      out.calls[name] = { isError: Boolean(r.isError), text: texts(r.content) };
      out.progress[name] = seen;
    }
    out.reads = {};
    for (const uri of plan.reads ?? []) {
      const r = await client.readResource({ uri }, req);
      out.reads[uri] = r.contents[0]?.text ?? null;
    }
    out.gets = {};
    for (const [name, args] of plan.prompts ?? []) {
      const r = await client.getPrompt({ name, arguments: args }, req);
      out.gets[name] = r.messages.map((m) => m.content?.text ?? null);
    }
    out.asked = asked;
    return out;
  } finally {
    if (transport.sessionId !== undefined && typeof transport.terminateSession === 'function') {
      await transport.terminateSession().catch(() => {});
    }
    await client.close().catch(() => {});
  }
}

function describe(error) {
  if (error instanceof ProtocolError) return `MCP error ${error.code}: ${error.message}`;
  if (error instanceof SdkError) return `${error.name} ${error.code}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

const mode = arg('--mode');
if (!['legacy', 'modern'].includes(mode)) {
  console.error('sdk_gateway_client: error: --mode legacy|modern');
  process.exit(2);
}
const timer = setTimeout(() => {
  console.error('sdk_gateway_client: error: timed out');
  process.exit(1);
}, 90_000);
try {
  const out = await run(mode, arg('--url'), JSON.parse(arg('--plan')));
  process.stdout.write(JSON.stringify(out) + '\n');
  clearTimeout(timer);
  process.exit(0);
} catch (error) {
  console.error(`sdk_gateway_client: error: ${describe(error).replace(/\s*\n\s*/g, ' ')}`);
  process.exit(1);
}
