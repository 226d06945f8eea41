#!/usr/bin/env node
// Reference HTTP MCP client built with the official TypeScript SDK v2
// (@modelcontextprotocol/client 2.4.0, pinned in package.json). Plain ESM, no build step; Node >= 20.
// The HTTP counterpart of tests/interop/python/sdk_client.py: same options, calls and output line.
//
// Usage:
//   node sdk_client.mjs [--lineage auto|modern|legacy] [--protocol-version V] [--text T]
//                       [--timeout SECONDS] [--sse-transport] [--everything] URL
//
// Transport: StreamableHTTPClientTransport(URL), or with --sse-transport the deprecated 2024-11-05
// SSEClientTransport(URL) (URL = the SSE endpoint, e.g. http://127.0.0.1:PORT/sse).
// --everything targets @modelcontextprotocol/server-everything (everything.mjs): the calls become
// echo {"message": T} (answer "Echo: T") and get-sum {"a": 2, "b": 3} (text only, so "add" is null).
//
// Negotiation (SDK code; the version printed is client.getNegotiatedProtocolVersion()):
//   auto (default)  new Client(..., {versionNegotiation: {mode: 'auto'}}): server/discover probe at
//                   2026-07-28; DiscoverResult naming it -> modern; -32022 naming a mutual modern
//                   version -> corrective re-probe; anything else (other JSON-RPC errors, HTTP 4xx
//                   other than 401/403) -> initialize fallback. HTTP 5xx, 401/403, network errors
//                   and probe timeouts fail instead. With --protocol-version V and no explicit
//                   lineage, the lineage is inferred from V (>= 2026-07-28 -> modern, else legacy).
//   modern          {mode: {pin: V}} (V defaults to 2026-07-28): server/discover must offer V; no
//                   fallback. The SDK refuses a pin that is not >= 2026-07-28 (TypeError -> exit 1).
//   legacy          the SDK's default connect (no probe): initialize offering
//                   supportedProtocolVersions[0] -- 2025-11-25, or V when given (the option is set
//                   to [V, ...SDK list]); the server's answer must be in that list. A V >= 2026-07-28
//                   cannot be offered (the SDK filters modern versions out of initialize).
// Then tools/list (listTools(): the SDK walks every page), tools/call echo {"text": T}
// (default "hello from typescript sdk"), tools/call add {"a": 2, "b": 3}, and ONE JSON line on
// stdout formatted like Python's json.dumps (", "/": " separators, non-ASCII as \uXXXX):
//   {"protocolVersion": "...", "lineage": "modern"|"legacy", "tools": [sorted names],
//    "echo": "<echo text>", "add": <add structuredContent or null>}
// (JS numbers: a 5.0 from the Python server prints as 5.)
// Exit 0 on success; 1 with one stderr line "sdk_client.mjs: error: ..." on failure (a JSON-RPC
// error is "MCP error <code>: <message> data=<json>"); 2 on bad usage. A legacy session that got
// an mcp-session-id is ended with DELETE before closing (as the Python SDK does by default).

import {
    Client,
    ProtocolError,
    SdkError,
    SdkHttpError,
    SSEClientTransport,
    StreamableHTTPClientTransport,
    SUPPORTED_PROTOCOL_VERSIONS
} from '@modelcontextprotocol/client';

const DEFAULT_TEXT = 'hello from typescript sdk';
const CLIENT_INFO = { name: 'mcpcore-interop-ts-sdk-client', version: '0.1.0' };
const FIRST_MODERN = '2026-07-28';
const isModern = (v) => v >= FIRST_MODERN; // the SDK's own rule (ISO dates compare lexicographically)

class InteropFailure extends Error {}

function usage(message) {
    console.error(
        'usage: node sdk_client.mjs [--lineage auto|modern|legacy] [--protocol-version V] [--text T] [--timeout S] [--sse-transport] [--everything] URL'
    );
    console.error(`sdk_client.mjs: error: ${message}`);
    process.exit(2);
}

function parseArgs(argv) {
    const opts = { lineage: 'auto', version: undefined, text: DEFAULT_TEXT, timeout: 60, sse: false, everything: false, url: undefined };
    const value = (i, name) => {
        if (i >= argv.length) usage(`argument ${name}: expected one argument`);
        return argv[i];
    };
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === '--lineage') opts.lineage = value(++i, arg);
        else if (arg === '--protocol-version') opts.version = value(++i, arg);
        else if (arg === '--text') opts.text = value(++i, arg);
        else if (arg === '--timeout') opts.timeout = Number(value(++i, arg));
        else if (arg === '--sse-transport') opts.sse = true;
        else if (arg === '--everything') opts.everything = true;
        else if (arg === '-h' || arg === '--help') usage('help requested');
        else if (arg.startsWith('--')) usage(`unrecognized arguments: ${arg}`);
        else if (opts.url === undefined) opts.url = arg;
        else usage(`unrecognized arguments: ${arg}`);
    }
    if (!['auto', 'modern', 'legacy'].includes(opts.lineage)) usage(`argument --lineage: invalid choice: '${opts.lineage}'`);
    if (!(opts.timeout > 0)) usage('argument --timeout: must be a positive number of seconds');
    if (opts.url === undefined) usage('the following arguments are required: URL');
    try {
        opts.url = new URL(opts.url);
    } catch {
        usage(`invalid URL ${JSON.stringify(opts.url)}`);
    }
    return opts;
}

/** Python `json.dumps(value)` formatting (default separators, ensure_ascii=True). */
function pyDumps(value) {
    if (value === null || value === undefined) return 'null';
    if (typeof value === 'string') {
        return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
    }
    if (typeof value === 'number') {
        if (Number.isNaN(value)) return 'NaN';
        if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
        return JSON.stringify(value);
    }
    if (typeof value === 'boolean') return value ? 'true' : 'false';
    if (Array.isArray(value)) return '[' + value.map(pyDumps).join(', ') + ']';
    return '{' + Object.entries(value).map(([k, v]) => `${pyDumps(k)}: ${pyDumps(v)}`).join(', ') + '}';
}

function clientOptions(lineage, version) {
    if (lineage === 'auto' && version !== undefined) lineage = isModern(version) ? 'modern' : 'legacy';
    if (lineage === 'auto') return { versionNegotiation: { mode: 'auto' } };
    if (lineage === 'modern') return { versionNegotiation: { mode: { pin: version ?? FIRST_MODERN } } };
    if (version === undefined) return {};
    return { supportedProtocolVersions: [version, ...SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== version)] };
}

async function call(client, name, args) {
    const result = await client.callTool({ name, arguments: args }); // validates structuredContent vs outputSchema
    if (result.isError) throw new InteropFailure(`tool '${name}' returned isError=true: ${JSON.stringify(result)}`);
    return result;
}

async function run(opts) {
    const client = new Client(CLIENT_INFO, clientOptions(opts.lineage, opts.version));
    const transport = opts.sse ? new SSEClientTransport(opts.url) : new StreamableHTTPClientTransport(opts.url);
    await client.connect(transport);
    try {
        const negotiated = client.getNegotiatedProtocolVersion();
        if (negotiated === undefined) throw new InteropFailure('no protocol version negotiated');
        const { tools } = await client.listTools(); // no cursor: the SDK aggregates all pages
        const names = tools.map((t) => t.name).sort();

        const echo = await call(client, 'echo', { [opts.everything ? 'message' : 'text']: opts.text });
        if (echo.content.length !== 1 || echo.content[0].type !== 'text') {
            throw new InteropFailure(`echo: expected exactly one text content, got ${JSON.stringify(echo.content)}`);
        }
        const add = await call(client, opts.everything ? 'get-sum' : 'add', { a: 2, b: 3 });
        return {
            protocolVersion: negotiated,
            lineage: client.getProtocolEra() === 'modern' ? 'modern' : 'legacy',
            tools: names,
            echo: echo.content[0].text,
            add: add.structuredContent ?? null
        };
    } finally {
        if (transport.sessionId !== undefined && typeof transport.terminateSession === 'function') {
            await transport.terminateSession().catch(() => {});
        }
        await client.close().catch(() => {});
    }
}

function describe(error) {
    if (error instanceof ProtocolError) {
        return `MCP error ${error.code}: ${error.message} data=${pyDumps(error.data ?? null)}`;
    }
    if (error instanceof SdkHttpError) {
        const d = error.data ?? {};
        return `${error.name} ${error.code} (HTTP ${d.status}): ${error.message}`;
    }
    if (error instanceof SdkError) return `${error.name} ${error.code}: ${error.message}`;
    if (error instanceof Error) return `${error.name}: ${error.message}`;
    return String(error);
}

const opts = parseArgs(process.argv.slice(2));
const timer = setTimeout(() => {
    console.error('sdk_client.mjs: error: timed out');
    process.exit(1);
}, opts.timeout * 1000);

try {
    const output = await run(opts);
    process.stdout.write(pyDumps(output) + '\n');
    clearTimeout(timer);
    process.exit(0);
} catch (error) {
    console.error(`sdk_client.mjs: error: ${describe(error).replace(/\s*\n\s*/g, ' ')}`);
    process.exit(1);
}
