'use strict';
// `server.nodeHandler()`: an `(req, res)` function for `http.createServer` or Express.
//
// The engine's HTTP server is axum inside the native module; Node's `http` objects cannot be
// handed to it. So the handler starts the engine's own HTTP server on an ephemeral loopback port
// (once, on the first request) and forwards each request to it, streaming the answer back (SSE
// included). Closing the outer response closes the forwarded request, which the engine treats as
// a cancelled call. Every protocol rule stays in the engine.
//
// DNS-rebinding protection (Host/Origin checks) is the outer server's job unless `allowedHosts`
// or `allowedOrigins` are given: then the original Host and Origin headers are checked against
// them by the engine. Mount it where the paths match: `path` (default `/mcp`), and `/sse` plus
// `/messages` for 2024-11-05 SSE clients, e.g. `http.createServer(server.nodeHandler())` or
// `app.all(['/mcp', '/sse', '/messages'], server.nodeHandler())`.

const http = require('node:http');

/** Returns `{ handler, close }` for `server` (a JS `Server`) with serveHttp `options`. */
function createNodeHandler(server, options = {}) {
  const { allowedHosts, allowedOrigins, ...rest } = options;
  const checked = allowedHosts !== undefined || allowedOrigins !== undefined;
  const agent = new http.Agent({ keepAlive: true });
  let serving;

  const start = () => {
    serving ??= server.serveHttp({
      ...rest,
      host: '127.0.0.1',
      port: 0,
      ...(checked ? { allowedHosts, allowedOrigins } : { anyHost: true }),
    });
    return serving;
  };

  const fail = (res, status, message) => {
    if (!res.headersSent) {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(message);
    } else {
      res.destroy();
    }
  };

  const handler = (req, res) => {
    start().then(
      (s) => {
        const headers = { ...req.headers };
        // Express's json() may have consumed the body already: send the parsed body instead.
        const parsed = req.body !== undefined && req.readableEnded;
        const body = parsed ? Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body)) : null;
        if (body) {
          headers['content-length'] = String(body.length);
          delete headers['transfer-encoding'];
        }
        const upstream = http.request(
          { host: '127.0.0.1', port: s.port, method: req.method, path: req.originalUrl ?? req.url, headers, agent },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            if (typeof res.flushHeaders === 'function') res.flushHeaders();
            answer.pipe(res);
          }
        );
        upstream.on('error', (e) => fail(res, 502, `mcpcore: ${e.message}`));
        res.on('close', () => {
          if (!res.writableFinished) upstream.destroy();
        });
        if (body) upstream.end(body);
        else req.pipe(upstream);
      },
      (e) => fail(res, 500, `mcpcore: ${e.message}`)
    );
  };

  const close = async () => {
    agent.destroy();
    if (serving) {
      const s = await serving.catch(() => undefined);
      serving = undefined;
      if (s) await s.shutdown();
    }
  };

  return { handler, close };
}

module.exports = { createNodeHandler };
