#!/usr/bin/env node
// A 2026-07-28 server built with the official TypeScript SDK v2 (@modelcontextprotocol/server
// 2.4.0) that announces changes on `subscriptions/listen` streams, for the mcpcore client's own
// listen stream (tests/rust/interop_client_features.rs).
//
// Usage: node sdk_listen_server.mjs --port PORT   -> prints "READY http://127.0.0.1:P/mcp"
//
// createMcpHandler(factory, {legacy: 'reject'}): modern requests only. Capabilities
// tools.listChanged, resources.subscribe and resources.listChanged (the SDK honours a listen
// filter only for what is declared). Tool `change` publishes, through the handler's `notify`,
// a tool list change and an update of `memo://a`, then answers "changed".
import http from 'node:http';

import { createMcpHandler, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';

const HOST = '127.0.0.1';
const args = process.argv.slice(2);
const portIndex = args.indexOf('--port');
const port = portIndex >= 0 ? Number(args[portIndex + 1]) : 0;

let handler;

function factory() {
    const server = new Server(
        { name: 'mcpcore-interop-ts-listen', version: '0.1.0' },
        { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } } }
    );
    server.setRequestHandler('tools/list', async () => ({
        tools: [{ name: 'change', inputSchema: { type: 'object', properties: {} } }]
    }));
    server.setRequestHandler('tools/call', async (request) => {
        if (request.params.name !== 'change') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
        handler.notify.toolsChanged();
        handler.notify.resourceUpdated('memo://a');
        return { content: [{ type: 'text', text: 'changed' }] };
    });
    server.setRequestHandler('resources/list', async () => ({ resources: [{ uri: 'memo://a', name: 'a', mimeType: 'text/plain' }] }));
    server.setRequestHandler('resources/read', async (request) => ({
        contents: [{ uri: request.params.uri, mimeType: 'text/plain', text: 'a' }]
    }));
    return server;
}

const onerror = (error) => console.error('sdk_listen_server.mjs:', error?.message ?? error);
handler = createMcpHandler(factory, { legacy: 'reject', onerror });
const nodeHandler = toNodeHandler(handler, { onerror });
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
