#!/usr/bin/env node
// The official TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0, pinned in package.json)
// against several mcpcore `conformance-server` instances behind one load balancer
// (tests/rust/scale_out.rs). The counterpart of ../python/sdk_scale_client.py (same flags and
// keys, one JSON line formatted like Python's json.dumps).
//
// Usage:
//   node sdk_scale_client.mjs --mode legacy|modern --url URL [--calls N] [--mrtr M] [--updates U]
//                             [--features] [--listen L]
//
// Over one client (legacy: ONE Streamable HTTP session, the SDK's default connect; modern:
// versionNegotiation pinned to 2026-07-28), in order: `echo {"text": "call <i>"}` N times, each
// answer checked; M calls of `test_input_required_result_elicitation` answered by the
// elicitation handler (legacy: a real elicitation/create whose answer the SDK POSTs separately;
// modern: MRTR rounds driven by the SDK); --features: `test_tool_with_progress` (onprogress)
// and, legacy, `test_tool_with_logging` (a notifications/message handler); legacy U > 0:
// subscribeResource once, then U triggers of `test_trigger_resource_update`, each waited for as
// notifications/resources/updated (on the session's GET stream); modern L > 0:
// client.listen({resourceSubscriptions}) then L triggers, each waited for.
// Output: {"protocolVersion", "echoes", "mrtr", "updates", "progress", "logs", "listen"}.
// Exit 0 on success; 1 with one stderr line "sdk_scale_client: error: ..." on failure.

import { Client, ProtocolError, SdkError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const CLIENT_INFO = { name: 'mcpcore-interop-ts-scale-client', version: '0.1.0' };
const MODERN = '2026-07-28';
const WATCHED = 'test://watched-resource';
const TIMEOUT_MS = 20_000;
const OVERALL_MS = 120_000;

function parseArgs(argv) {
    const opts = { mode: undefined, url: undefined, calls: 1, mrtr: 0, updates: 0, features: false, listen: 0 };
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        const num = () => Number.parseInt(argv[++i], 10);
        if (arg === '--mode') opts.mode = argv[++i];
        else if (arg === '--url') opts.url = argv[++i];
        else if (arg === '--calls') opts.calls = num();
        else if (arg === '--mrtr') opts.mrtr = num();
        else if (arg === '--updates') opts.updates = num();
        else if (arg === '--listen') opts.listen = num();
        else if (arg === '--features') opts.features = true;
        else throw new Error(`unrecognized argument ${arg}`);
    }
    if (!['legacy', 'modern'].includes(opts.mode)) throw new Error('--mode: choose legacy or modern');
    if (!opts.url) throw new Error('give --url');
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

function textOf(result) {
    const block = (Array.isArray(result?.content) ? result.content : []).find((b) => b?.type === 'text');
    return block ? block.text : '';
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
        capabilities: { elicitation: {} },
        ...(opts.mode === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {})
    });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ann' } }));
    const updates = [];
    const listened = [];
    let logs = 0;
    client.setNotificationHandler('notifications/resources/updated', (n) => {
        (opts.mode === 'legacy' ? updates : listened).push(n.params.uri);
    });
    client.setNotificationHandler('notifications/message', () => {
        logs += 1;
    });
    const transport = new StreamableHTTPClientTransport(new URL(opts.url));
    const req = { timeout: TIMEOUT_MS };
    await client.connect(transport, req);
    try {
        const out = {
            protocolVersion: client.getNegotiatedProtocolVersion(),
            echoes: [],
            mrtr: [],
            updates: [],
            progress: [],
            logs: 0,
            listen: []
        };
        for (let i = 1; i <= opts.calls; i++) {
            const r = await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } }, req);
            if (r.isError || textOf(r) !== `call ${i}`) throw new Error(`call ${i}: unexpected answer ${JSON.stringify(r)}`);
            out.echoes.push(textOf(r));
        }
        for (let i = 0; i < opts.mrtr; i++) {
            const r = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} }, req);
            out.mrtr.push(textOf(r));
        }
        if (opts.features) {
            const progress = [];
            const r = await client.callTool(
                { name: 'test_tool_with_progress', arguments: {} },
                { ...req, onprogress: (p) => progress.push(p.progress) }
            );
            if (r.isError) throw new Error(`test_tool_with_progress failed: ${textOf(r)}`);
            out.progress = progress;
            if (opts.mode === 'legacy') {
                const l = await client.callTool({ name: 'test_tool_with_logging', arguments: {} }, req);
                if (l.isError) throw new Error(`test_tool_with_logging failed: ${textOf(l)}`);
                await waitFor(() => logs >= 3, 10_000, 'three log messages');
                out.logs = logs;
            }
        }
        if (opts.updates && opts.mode === 'legacy') {
            await client.subscribeResource({ uri: WATCHED }, req);
            for (let i = 1; i <= opts.updates; i++) {
                await client.callTool({ name: 'test_trigger_resource_update', arguments: { uri: WATCHED } }, req);
                await waitFor(() => updates.length >= i, 10_000, `resource update ${i}`);
            }
            out.updates = updates;
        }
        if (opts.listen && opts.mode === 'modern') {
            const sub = await client.listen({ resourceSubscriptions: [WATCHED] }, req);
            try {
                for (let i = 1; i <= opts.listen; i++) {
                    await client.callTool({ name: 'test_trigger_resource_update', arguments: { uri: WATCHED } }, req);
                    await waitFor(() => listened.length >= i, 10_000, `listen event ${i}`);
                }
            } finally {
                await sub.close();
            }
            out.listen = listened;
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

const timer = setTimeout(() => {
    console.error('sdk_scale_client: error: timed out');
    process.exit(1);
}, OVERALL_MS);

try {
    const out = await run(parseArgs(process.argv.slice(2)));
    process.stdout.write(pyDumps(out) + '\n');
    clearTimeout(timer);
    process.exit(0);
} catch (error) {
    console.error(`sdk_scale_client: error: ${describe(error).replace(/\s*\n\s*/g, ' ')}`);
    process.exit(1);
}
