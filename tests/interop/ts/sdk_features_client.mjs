#!/usr/bin/env node
// The official TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0, pinned in package.json)
// against an mcpcore server exposing the conformance fixture (`mcpcore conformance-server`).
// Plain ESM, no build step; Node >= 20. The counterpart of ../python/sdk_features_client.py: same
// calls, same keys, one JSON line formatted like Python's json.dumps.
//
// Usage:
//   node sdk_features_client.mjs --mode legacy|modern (--stdio CMD ARGS... | --url URL)
//
// Transport: StdioClientTransport({command, args}) or StreamableHTTPClientTransport(URL).
// Lineage: legacy = the SDK's default connect (initialize); modern = versionNegotiation
// {mode: {pin: '2026-07-28'}} (server/discover, no fallback).
//
// Client input: handlers registered with setRequestHandler('sampling/createMessage' |
// 'elicitation/create' | 'roots/list') after declaring the three capabilities. On a legacy session
// the server sends real requests to them; on 2026-07-28 the SDK's built-in multi-round-trip driver
// (ClientOptions.inputRequired, autoFulfill defaults to true) dispatches each `input_required`
// result's inputRequests to the same handlers and retries with inputResponses + requestState, so
// callTool()/getPrompt() simply return the final result.
//
// Change notifications: legacy = subscribeResource() + a 'notifications/resources/updated'
// handler; modern = client.listen({toolsListChanged, resourceSubscriptions}) whose events reach the
// same setNotificationHandler registrations. The SDK exposes no event objects, so "events" holds
// the sorted notification methods that arrived (Python prints its event class names instead).
//
// Output (one line): {"protocolVersion", "resources", "static_text", "template", "templates",
// "prompts", "prompt_text", "completion", "elicitation", "sampling", "multiple", "multi_round",
// "input_prompt", and "updated" (legacy) or "events" (modern)}.
// Exit 0 on success; 1 with one stderr line "sdk_features_client: error: ..." on failure; 2 on bad
// usage.

import { Client, ProtocolError, SdkError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const CLIENT_INFO = { name: 'mcpcore-interop-ts-features-client', version: '0.1.0' };
const MODERN = '2026-07-28';
const WATCHED = 'test://watched-resource';
const TIMEOUT_MS = 10_000; // per request, like the Python script's read_timeout_seconds=10
const OVERALL_MS = 60_000;

function usage(message) {
    console.error('usage: node sdk_features_client.mjs --mode legacy|modern (--stdio CMD ARGS... | --url URL)');
    console.error(`sdk_features_client: error: ${message}`);
    process.exit(2);
}

function parseArgs(argv) {
    const opts = { mode: undefined, url: undefined, stdio: undefined };
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === '--mode') opts.mode = argv[++i];
        else if (arg === '--url') opts.url = argv[++i];
        else if (arg === '--stdio') {
            opts.stdio = argv.slice(i + 1); // like argparse.REMAINDER
            break;
        } else usage(`unrecognized arguments: ${arg}`);
    }
    if (!['legacy', 'modern'].includes(opts.mode)) usage('argument --mode: choose legacy or modern');
    if (!opts.url && !(opts.stdio && opts.stdio.length)) usage('give --url or --stdio');
    return opts;
}

/** Python `json.dumps(value)` formatting (default separators, ensure_ascii=True). */
function pyDumps(value) {
    if (value === null || value === undefined) return 'null';
    if (typeof value === 'string') {
        return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
    }
    if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
    if (Array.isArray(value)) return '[' + value.map(pyDumps).join(', ') + ']';
    return '{' + Object.entries(value).map(([k, v]) => `${pyDumps(k)}: ${pyDumps(v)}`).join(', ') + '}';
}

const blocks = (content) => (Array.isArray(content) ? content : content ? [content] : []);

function textOf(result) {
    const block = blocks(result?.content).find((b) => b?.type === 'text');
    return block ? block.text : '';
}

function installHandlers(client) {
    client.setRequestHandler('sampling/createMessage', async (request) => {
        const asked = blocks(request.params.messages[0]?.content)[0];
        return {
            role: 'assistant',
            content: { type: 'text', text: `re: ${asked?.text ?? '?'}` },
            model: 'sdk-model',
            stopReason: 'endTurn'
        };
    });
    client.setRequestHandler('elicitation/create', async () => ({
        action: 'accept',
        content: { name: 'Ann', username: 'ann', email: 'a@x.io', context: 'tea' }
    }));
    client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
}

async function waitFor(predicate, ms, what) {
    const deadline = Date.now() + ms;
    while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
    }
}

async function run(opts) {
    const client = new Client(CLIENT_INFO, {
        capabilities: { sampling: {}, elicitation: {}, roots: {} },
        ...(opts.mode === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {})
    });
    installHandlers(client);
    const updates = [];
    const events = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => {
        updates.push(n.params.uri);
        events.push(n.method);
    });
    client.setNotificationHandler('notifications/tools/list_changed', (n) => {
        events.push(n.method);
    });
    const transport = opts.url
        ? new StreamableHTTPClientTransport(new URL(opts.url))
        : new StdioClientTransport({ command: opts.stdio[0], args: opts.stdio.slice(1) });
    const req = { timeout: TIMEOUT_MS };
    await client.connect(transport, req);
    try {
        const out = { protocolVersion: client.getNegotiatedProtocolVersion() };
        const listed = await client.listResources(undefined, req);
        out.resources = listed.resources.map((r) => r.uri).sort();
        let read = await client.readResource({ uri: 'test://static-text' }, req);
        out.static_text = read.contents[0].text;
        read = await client.readResource({ uri: 'test://template/42/data' }, req);
        out.template = JSON.parse(read.contents[0].text).id;
        const templates = await client.listResourceTemplates(undefined, req);
        out.templates = templates.resourceTemplates.map((t) => t.uriTemplate);
        const prompts = await client.listPrompts(undefined, req);
        out.prompts = prompts.prompts.map((p) => p.name).sort();
        const got = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x', arg2: 'y' } }, req);
        out.prompt_text = got.messages[0].content.text;
        const done = await client.complete(
            { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'te' } },
            req
        );
        out.completion = done.completion.values;
        // Client input: real requests (legacy) or MRTR rounds driven by the SDK (modern).
        const call = async (name) => textOf(await client.callTool({ name, arguments: {} }, req));
        out.elicitation = await call('test_input_required_result_elicitation');
        out.sampling = await call('test_input_required_result_sampling');
        out.multiple = await call('test_input_required_result_multiple_inputs');
        out.multi_round = await call('test_input_required_result_multi_round');
        const g = await client.getPrompt({ name: 'test_input_required_result_prompt', arguments: {} }, req);
        out.input_prompt = g.messages[0].content.text;
        // Change notifications.
        if (opts.mode === 'legacy') {
            await client.subscribeResource({ uri: WATCHED }, req);
            await client.callTool({ name: 'test_trigger_resource_update', arguments: { uri: WATCHED } }, req);
            await waitFor(() => updates.length > 0, 5000, 'notifications/resources/updated');
            out.updated = updates[0];
        } else {
            events.length = 0;
            const sub = await client.listen({ toolsListChanged: true, resourceSubscriptions: [WATCHED] }, req);
            try {
                await client.callTool({ name: 'test_trigger_resource_update', arguments: { uri: WATCHED } }, req);
                await client.callTool({ name: 'test_trigger_tool_change', arguments: {} }, req);
                await waitFor(() => events.length >= 2, 5000, 'two subscription events');
            } finally {
                await sub.close();
            }
            out.events = events.slice(0, 2).sort();
        }
        return out;
    } finally {
        if (transport.sessionId !== undefined && typeof transport.terminateSession === 'function') {
            await transport.terminateSession().catch(() => {});
        }
        await client.close().catch(() => {});
    }
}

function describe(error) {
    if (error instanceof ProtocolError) return `MCP error ${error.code}: ${error.message} data=${pyDumps(error.data ?? null)}`;
    if (error instanceof SdkError) return `${error.name} ${error.code}: ${error.message}`;
    if (error instanceof Error) return `${error.name}: ${error.message}`;
    return String(error);
}

const opts = parseArgs(process.argv.slice(2));
const timer = setTimeout(() => {
    console.error('sdk_features_client: error: timed out');
    process.exit(1);
}, OVERALL_MS);

try {
    const out = await run(opts);
    process.stdout.write(pyDumps(out) + '\n');
    clearTimeout(timer);
    process.exit(0);
} catch (error) {
    console.error(`sdk_features_client: error: ${describe(error).replace(/\s*\n\s*/g, ' ')}`);
    process.exit(1);
}
