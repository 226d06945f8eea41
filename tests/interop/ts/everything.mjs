#!/usr/bin/env node
// Starts @modelcontextprotocol/server-everything (pinned 2026.8.31, built on the v1 SDK
// @modelcontextprotocol/sdk 1.x) in one of its HTTP modes, bound to 127.0.0.1 only:
//   --transport sse             (default) the deprecated 2024-11-05 HTTP+SSE transport, /sse
//   --transport streamableHttp  legacy Streamable HTTP (sessions, a GET stream, an event store
//                               for Last-Event-ID resumption), /mcp
// (Its stdio mode needs no wrapper: node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio.)
//
// Usage:  node everything.mjs [--transport sse|streamableHttp] --port PORT   (PORT 0 picks a free port)
// Prints  READY http://127.0.0.1:PORT/sse (or /mcp)  on stdout once listening; its own logs go to stderr.
//
// Why a wrapper: the package's modes (dist/transports/sse.js, streamableHttp.js) read the port
// from the PORT env var (default 3001) and call express `app.listen(PORT)` with no host, which
// binds every interface. This wrapper sets PORT, forces the listen host to 127.0.0.1, reports
// the bound port, and sends the server's console.log lines to stderr; the server code is
// unchanged.
// sse wire: GET /sse -> `event: endpoint` `data: /message?sessionId=<uuid>`; POST
// /message?sessionId=... -> 202 "Accepted"; replies come as `event: message` on the GET stream.
// CORS is `*`; no Host/Origin checks. Tools include echo {message} -> "Echo: <message>" and
// get-sum {a, b} (text only).

import http from 'node:http';

const HOST = '127.0.0.1';
const argv = process.argv.slice(2);
let port;
let transport = 'sse';
for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--port') port = argv[++i];
    else if (argv[i].startsWith('--port=')) port = argv[i].slice(7);
    else if (argv[i] === '--transport') transport = argv[++i];
    else if (argv[i].startsWith('--transport=')) transport = argv[i].slice(12);
    else {
        console.error(`everything.mjs: error: unknown argument ${JSON.stringify(argv[i])}`);
        process.exit(2);
    }
}
if (port === undefined || !/^\d+$/.test(port) || Number(port) > 65535 || !['sse', 'streamableHttp'].includes(transport)) {
    console.error('usage: node everything.mjs [--transport sse|streamableHttp] --port PORT');
    process.exit(2);
}
process.env.PORT = port;
const path = transport === 'sse' ? '/sse' : '/mcp';
// stdout carries only the READY line.
console.log = (...args) => console.error(...args);

const originalListen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
    // express: app.listen(PORT, callback) -> server.listen(PORT, callback)
    const callbacks = args.filter((a) => typeof a === 'function');
    this.once('listening', () => {
        const address = this.address();
        process.stdout.write(`READY http://${HOST}:${address.port}${path}\n`);
    });
    this.once('error', (error) => {
        console.error(`everything.mjs: error: ${error.message}`);
        process.exit(1);
    });
    return originalListen.call(this, Number(process.env.PORT), HOST, ...callbacks);
};

await import(`@modelcontextprotocol/server-everything/dist/transports/${transport}.js`);

const stop = () => process.exit(0);
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
