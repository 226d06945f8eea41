#!/usr/bin/env node
// Reference Streamable HTTP MCP server built with the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0 + @modelcontextprotocol/node 2.1.2, pinned in package.json).
// Plain ESM, no build step; Node >= 20.
//
// Usage:
//   node sdk_server.mjs --port PORT [--legacy-only | --modern-only] [--json-response | --sse-response]
//                       [--stateful-legacy] [--verbose]
//
// Serves http://127.0.0.1:PORT/mcp (PORT 0 picks a free port) and prints one line on stdout
// once listening:  READY http://127.0.0.1:PORT/mcp
// Logs go to stderr. SIGINT/SIGTERM close the listener and exit 0.
//
// Tools (mirroring tests/interop/python/sdk_server.py, on the low-level `Server`):
//   echo {text: string}            -> one text content equal to `text`
//   add  {a: number, b: number}    -> structuredContent {"sum": a+b} (declared outputSchema) plus
//                                     the same object as compact JSON text. JS numbers: 2+3 -> 5
//                                     (the Python server sends 5.0).
//   bad arguments -> isError:true result; unknown tool -> JSON-RPC -32602 "Unknown tool: <name>".
//
// Era serving (all SDK code unless noted):
//   default          createMcpHandler(factory, {legacy: 'stateless'}): requests carrying the
//                    2026-07-28 `_meta` envelope (or a modern MCP-Protocol-Version header) are
//                    served by a per-request modern instance; everything else by the SDK's
//                    stateless legacy fallback (fresh instance + stateless transport per POST,
//                    no mcp-session-id, GET/DELETE -> 405).
//   --modern-only    createMcpHandler(factory, {legacy: 'reject'}): legacy requests get -32022
//                    naming ["2026-07-28"]; legacy notifications 202.
//   --legacy-only    every request goes to the legacy leg (no modern path at all).
//   --json-response  modern leg responseMode 'json' (default 'auto': JSON unless the handler
//                    emits a notification first). The legacy leg is then hand-wired (see below)
//                    with enableJsonResponse: true, because the SDK's fallback has no JSON switch.
//   --sse-response   modern leg responseMode 'sse': every modern answer that passed the
//                    pre-dispatch checks is a text/event-stream (legacy leg unchanged: SSE anyway).
//   --stateful-legacy  the legacy leg is a hand-wired sessionful
//                    WebStandardStreamableHTTPServerTransport per session (mcp-session-id minted on
//                    initialize; unknown id -> 404 -32001 "Session not found"; missing id on a
//                    non-initialize request -> 400 -32000), routed with isLegacyRequest() in front
//                    of a legacy:'reject' handler -- the composition the SDK docs describe.
// Host/Origin: the SDK's localhostHostValidation()/localhostOriginValidation() guards run first
// (Host must be localhost/127.0.0.1/[::1]; a present Origin must be too; else 403).
// Any path other than /mcp -> 404.

import { randomUUID } from 'node:crypto';
import http from 'node:http';

import {
    createMcpHandler,
    isInitializeRequest,
    isLegacyRequest,
    legacyStatelessFallback,
    ProtocolError,
    ProtocolErrorCode,
    Server,
    WebStandardStreamableHTTPServerTransport
} from '@modelcontextprotocol/server';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';

const HOST = '127.0.0.1';
const SERVER_INFO = { name: 'mcpcore-interop-ts-sdk-server', version: '0.1.0' };

const ECHO_TOOL = {
    name: 'echo',
    description: 'Return the given text unchanged.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }
};
const ADD_TOOL = {
    name: 'add',
    description: 'Add two numbers; the result is structured as {"sum": a+b}.',
    inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b']
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }
};

function log(...args) {
    if (verbose) console.error('sdk_server.mjs:', ...args);
}

function usage(message) {
    console.error(`sdk_server.mjs: error: ${message}`);
    console.error(
        'usage: node sdk_server.mjs --port PORT [--legacy-only | --modern-only] [--json-response | --sse-response] [--stateful-legacy] [--verbose]'
    );
    process.exit(2);
}

function parseArgs(argv) {
    const opts = { port: undefined, legacyOnly: false, modernOnly: false, json: false, sse: false, statefulLegacy: false, verbose: false };
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === '--port') opts.port = argv[++i];
        else if (arg.startsWith('--port=')) opts.port = arg.slice('--port='.length);
        else if (arg === '--legacy-only') opts.legacyOnly = true;
        else if (arg === '--modern-only') opts.modernOnly = true;
        else if (arg === '--json-response') opts.json = true;
        else if (arg === '--sse-response') opts.sse = true;
        else if (arg === '--stateful-legacy') opts.statefulLegacy = true;
        else if (arg === '--verbose') opts.verbose = true;
        else if (arg === '-h' || arg === '--help') usage('help requested');
        else usage(`unknown argument ${JSON.stringify(arg)}`);
    }
    if (opts.port === undefined || !/^\d+$/.test(opts.port) || Number(opts.port) > 65535) usage('--port PORT is required (0-65535)');
    opts.port = Number(opts.port);
    if (opts.legacyOnly && opts.modernOnly) usage('--legacy-only and --modern-only are exclusive');
    if (opts.json && opts.sse) usage('--json-response and --sse-response are exclusive');
    if (opts.modernOnly && opts.statefulLegacy) usage('--stateful-legacy makes no sense with --modern-only');
    return opts;
}

const opts = parseArgs(process.argv.slice(2));
const verbose = opts.verbose;

function toolError(message) {
    return { content: [{ type: 'text', text: message }], isError: true };
}

const isNumber = (v) => typeof v === 'number' && Number.isFinite(v);

/** One fresh low-level Server per serving unit (the SDK calls this per request / per session). */
function factory(ctx) {
    log('factory: era', ctx?.era);
    const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } } });
    server.onerror = (error) => log('server error:', error?.message ?? error);
    server.setRequestHandler('tools/list', async () => ({ tools: [ECHO_TOOL, ADD_TOOL] }));
    server.setRequestHandler('tools/call', async (request) => {
        const { name, arguments: args = {} } = request.params;
        log('tools/call', name);
        if (name === 'echo') {
            if (typeof args.text !== 'string') return toolError("echo: argument 'text' must be a string");
            return server.projectCallToolResult({ content: [{ type: 'text', text: args.text }] }, undefined);
        }
        if (name === 'add') {
            if (!isNumber(args.a) || !isNumber(args.b)) return toolError("add: arguments 'a' and 'b' must be numbers");
            const structured = { sum: args.a + args.b };
            return server.projectCallToolResult(
                { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured },
                ADD_TOOL.outputSchema
            );
        }
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    });
    return server;
}

const onerror = (error) => log('handler error:', error?.message ?? error);

function jsonRpcError(status, code, message) {
    return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
        status,
        headers: { 'content-type': 'application/json' }
    });
}

/** Hand-wired stateless JSON legacy leg: what legacyStatelessFallback() does, with enableJsonResponse. */
function statelessJsonLegacyLeg() {
    return async (request) => {
        if (request.method.toUpperCase() !== 'POST') return jsonRpcError(405, -32000, 'Method not allowed.');
        const server = factory({ era: 'legacy', requestInfo: request });
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await server.connect(transport);
        const response = await transport.handleRequest(request); // JSON: complete once this resolves
        transport.close().catch(() => {});
        server.close().catch(() => {});
        return response;
    };
}

/** Hand-wired sessionful legacy leg (the classic 2025 stateful Streamable HTTP wiring). */
function statefulLegacyLeg(enableJsonResponse) {
    const sessions = new Map(); // session id -> transport
    return async (request) => {
        const sessionId = request.headers.get('mcp-session-id');
        if (sessionId) {
            const transport = sessions.get(sessionId);
            if (!transport) return jsonRpcError(404, -32001, 'Session not found');
            return transport.handleRequest(request);
        }
        let body;
        if (request.method.toUpperCase() === 'POST') {
            try {
                body = await request.clone().json();
            } catch {
                body = undefined;
            }
        }
        if (!isInitializeRequest(body)) return jsonRpcError(400, -32000, 'Bad Request: No valid session ID provided');
        const server = factory({ era: 'legacy', requestInfo: request });
        const transport = new WebStandardStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            enableJsonResponse,
            onsessioninitialized: (id) => {
                log('session opened', id);
                sessions.set(id, transport);
            },
            onsessionclosed: (id) => {
                log('session closed (DELETE)', id);
                sessions.delete(id);
            }
        });
        transport.onclose = () => {
            if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await server.connect(transport);
        return transport.handleRequest(request, { parsedBody: body });
    };
}

function buildFetchHandler() {
    const responseMode = opts.json ? 'json' : opts.sse ? 'sse' : 'auto';
    const customLegacy = opts.json || opts.statefulLegacy;
    const legacyLeg = opts.statefulLegacy
        ? statefulLegacyLeg(opts.json)
        : opts.json
          ? statelessJsonLegacyLeg()
          : legacyStatelessFallback(factory, onerror);

    if (opts.legacyOnly) return { fetch: (request) => legacyLeg(request) };
    if (opts.modernOnly) return createMcpHandler(factory, { legacy: 'reject', responseMode, onerror });
    if (!customLegacy) return createMcpHandler(factory, { legacy: 'stateless', responseMode, onerror });

    const modern = createMcpHandler(factory, { legacy: 'reject', responseMode, onerror });
    return {
        fetch: async (request) => ((await isLegacyRequest(request)) ? legacyLeg(request) : modern.fetch(request))
    };
}

const fetchHandler = buildFetchHandler();
const nodeHandler = toNodeHandler(fetchHandler, { onerror });
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

const httpServer = http.createServer((req, res) => {
    log(req.method, req.url, 'pv=', req.headers['mcp-protocol-version'], 'method=', req.headers['mcp-method'], 'sid=', req.headers['mcp-session-id']);
    const path = new URL(req.url ?? '/', 'http://placeholder').pathname;
    if (path !== '/mcp') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
        return;
    }
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    nodeHandler(req, res).catch((error) => {
        onerror(error);
        if (!res.headersSent) res.writeHead(500).end();
    });
});

httpServer.on('error', (error) => {
    console.error(`sdk_server.mjs: error: ${error.message}`);
    process.exit(1);
});

httpServer.listen(opts.port, HOST, () => {
    const { port } = httpServer.address();
    process.stdout.write(`READY http://${HOST}:${port}/mcp\n`);
});

function shutdown() {
    httpServer.close();
    httpServer.closeAllConnections?.();
    Promise.resolve(fetchHandler.close?.()).finally(() => process.exit(0));
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
