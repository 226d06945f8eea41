#!/usr/bin/env node
// Resources / prompts / completion / input peer built with the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0), used by tests/rust/interop_features.rs to test the mcpcore
// client over Streamable HTTP in both eras.
//
// Usage: node sdk_resources_server.mjs --http --port PORT   -> prints "READY http://127.0.0.1:P/mcp"
//
// Serving: modern (2026-07-28) requests -> createMcpHandler(factory, {legacy: 'reject'}); legacy
// requests (isLegacyRequest) -> a sessionful WebStandardStreamableHTTPServerTransport per session,
// because the SDK's legacy input shim sends real server->client requests whose answers must reach
// the same instance.
//
// Low-level Server, capabilities resources/prompts/completions/tools, cacheHints ttlMs 60000
// (private) on every cacheable method (the SDK applies them on 2026-07-28 only).
//   resources: text://greeting (text), bin://pixel (png blob), template greet://{name};
//              anything else -> ProtocolError -32002 (the SDK re-codes it, see SDK_NOTES.md)
//   prompts:   greet(name, style?) one user text; rich() embedded resource + image
//   completion: ref/prompt greet, argument name (context style=loud upper-cases)
//   tools:     ask_name, ask_twice, sample, roots -> written once with inputRequired(); the SDK
//              returns input_required on 2026-07-28 and its legacy shim sends real requests on
//              2025-era sessions; stats -> JSON of requests served per method.

import { randomUUID } from 'node:crypto';
import http from 'node:http';

import {
    createMcpHandler,
    inputRequired,
    inputResponse,
    isInitializeRequest,
    isLegacyRequest,
    ProtocolError,
    ProtocolErrorCode,
    Server,
    WebStandardStreamableHTTPServerTransport
} from '@modelcontextprotocol/server';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';

const HOST = '127.0.0.1';
const SERVER_INFO = { name: 'mcpcore-interop-ts-resources', version: '0.1.0' };
const PNG_B64 = Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64');
const NAMES = ['alice', 'albert', 'bob', 'carol'];
const HINT = { ttlMs: 60000, cacheScope: 'private' };
const counts = {};

const args = process.argv.slice(2);
const portIndex = args.indexOf('--port');
const port = portIndex >= 0 ? Number(args[portIndex + 1]) : 0;

const TOOLS = ['ask_name', 'ask_twice', 'sample', 'roots', 'stats'].map((name) => ({
    name,
    inputSchema: { type: 'object', properties: {} }
}));
const PERSON = {
    type: 'object',
    properties: { name: { type: 'string' }, age: { type: 'integer', default: 42 } },
    required: ['name']
};
const COLOUR = { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'] };
const elicit = (message, requestedSchema) => ({ method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

/** Asks for every key of `wanted` not yet answered; `undefined` once all are. */
function missing(ctx, wanted) {
    const requests = {};
    for (const [key, request] of Object.entries(wanted)) {
        if (inputResponse(ctx.mcpReq.inputResponses, key).kind === 'missing') requests[key] = request;
    }
    return Object.keys(requests).length ? inputRequired({ inputRequests: requests, requestState: 'ts-state' }) : undefined;
}

function factory() {
    const server = new Server(SERVER_INFO, {
        capabilities: { tools: {}, resources: {}, prompts: {}, completions: {} },
        cacheHints: {
            'tools/list': HINT,
            'prompts/list': HINT,
            'resources/list': HINT,
            'resources/templates/list': HINT,
            'resources/read': HINT
        }
    });
    const handle = (method, fn) =>
        server.setRequestHandler(method, async (request, ctx) => {
            counts[method] = (counts[method] ?? 0) + 1;
            return fn(request, ctx);
        });
    handle('resources/list', async () => ({
        resources: [
            { uri: 'text://greeting', name: 'greeting', mimeType: 'text/plain' },
            { uri: 'bin://pixel', name: 'pixel', mimeType: 'image/png' },
            { uri: 'counter://value', name: 'counter', mimeType: 'text/plain' }
        ]
    }));
    handle('resources/templates/list', async () => ({
        resourceTemplates: [{ uriTemplate: 'greet://{name}', name: 'greet', mimeType: 'text/plain' }]
    }));
    handle('resources/read', async (request) => {
        const uri = request.params.uri;
        if (uri === 'text://greeting') return { contents: [{ uri, mimeType: 'text/plain', text: 'Hello from the TypeScript SDK' }] };
        if (uri === 'counter://value') return { contents: [{ uri, mimeType: 'text/plain', text: '0' }] };
        if (uri === 'bin://pixel') return { contents: [{ uri, mimeType: 'image/png', blob: PNG_B64 }] };
        if (uri.startsWith('greet://')) return { contents: [{ uri, mimeType: 'text/plain', text: `Hello, ${uri.slice(8)}!` }] };
        throw new ProtocolError(ProtocolErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
    });
    handle('prompts/list', async () => ({
        prompts: [
            { name: 'greet', arguments: [{ name: 'name', required: true }, { name: 'style' }] },
            { name: 'rich', description: 'An embedded resource and an image.' }
        ]
    }));
    handle('prompts/get', async (request) => {
        const { name, arguments: a = {} } = request.params;
        if (name === 'greet') {
            const t = `Please greet ${a.name}`;
            return { messages: [{ role: 'user', content: { type: 'text', text: a.style === 'loud' ? t.toUpperCase() : t } }] };
        }
        if (name === 'rich') {
            return {
                messages: [
                    { role: 'user', content: { type: 'resource', resource: { uri: 'text://greeting', mimeType: 'text/plain', text: 'Hello' } } },
                    { role: 'user', content: { type: 'image', data: PNG_B64, mimeType: 'image/png' } }
                ]
            };
        }
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    });
    handle('completion/complete', async (request) => {
        const { ref, argument, context } = request.params;
        let values = [];
        if (ref.type === 'ref/prompt' && ref.name === 'greet' && argument.name === 'name') {
            values = NAMES.filter((n) => n.startsWith(argument.value));
            if (context?.arguments?.style === 'loud') values = values.map((v) => v.toUpperCase());
        }
        return { completion: { values, total: values.length, hasMore: false } };
    });
    handle('tools/list', async () => ({ tools: TOOLS }));
    handle('tools/call', async (request, ctx) => {
        const name = request.params.name;
        const view = (key) => inputResponse(ctx.mcpReq.inputResponses, key);
        if (name === 'ask_name') {
            const ask = missing(ctx, { person: elicit('Who are you?', PERSON) });
            if (ask) return ask;
            const p = view('person').content ?? {};
            return text(`${p.name}/${p.age}`);
        }
        if (name === 'ask_twice') {
            // Two rounds. inputResponses only answer the round they follow, so the person from
            // round one rides requestState into round two.
            // The SDK takes requestState out of the params; ctx.mcpReq.requestState() returns it.
            const raw = ctx.mcpReq.requestState();
            const state = typeof raw === 'string' ? JSON.parse(raw) : (raw ?? {});
            const person = view('person').content ?? state.person;
            if (!person) return inputRequired({ inputRequests: { person: elicit('Who are you?', PERSON) }, requestState: '{}' });
            const colour = view('colour').content;
            if (!colour) {
                return inputRequired({ inputRequests: { colour: elicit('Favourite colour?', COLOUR) }, requestState: JSON.stringify({ person }) });
            }
            return text(`${person.name}:${colour.colour}`);
        }
        if (name === 'sample') {
            const ask = missing(ctx, {
                hi: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 } }
            });
            if (ask) return ask;
            const r = view('hi').result;
            return text(r?.content?.text ?? JSON.stringify(r));
        }
        if (name === 'roots') {
            const ask = missing(ctx, { roots: { method: 'roots/list' } });
            if (ask) return ask;
            return text(view('roots').roots.map((r) => r.uri).join(','));
        }
        if (name === 'stats') return text(JSON.stringify(counts));
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    });
    return server;
}

const onerror = (error) => console.error('sdk_resources_server.mjs:', error?.message ?? error);

function jsonRpcError(status, code, message) {
    return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
        status,
        headers: { 'content-type': 'application/json' }
    });
}

const sessions = new Map();
async function legacyLeg(request) {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
        const transport = sessions.get(sessionId);
        if (!transport) return jsonRpcError(404, -32001, 'Session not found');
        return transport.handleRequest(request);
    }
    let body;
    try {
        body = await request.clone().json();
    } catch {
        body = undefined;
    }
    if (!isInitializeRequest(body)) return jsonRpcError(400, -32000, 'Bad Request: No valid session ID provided');
    const server = factory();
    const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
        onsessionclosed: (id) => sessions.delete(id)
    });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
}

const modern = createMcpHandler(factory, { legacy: 'reject', onerror });
const fetchHandler = { fetch: async (request) => ((await isLegacyRequest(request)) ? legacyLeg(request) : modern.fetch(request)) };
const nodeHandler = toNodeHandler(fetchHandler, { onerror });
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

const httpServer = http.createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://placeholder').pathname !== '/mcp') {
        res.writeHead(404).end('Not Found');
        return;
    }
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    nodeHandler(req, res).catch((error) => {
        onerror(error);
        if (!res.headersSent) res.writeHead(500).end();
    });
});
httpServer.listen(port, HOST, () => process.stdout.write(`READY http://${HOST}:${httpServer.address().port}/mcp\n`));
const shutdown = () => {
    httpServer.close();
    httpServer.closeAllConnections?.();
    process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
