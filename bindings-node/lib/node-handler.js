'use strict';
// `server.nodeHandler()` and `server.fetchHandler()`: the server's endpoint inside the host's own
// HTTP server. Each request goes straight into the Rust engine (the native `Mount`: the same
// axum router `serveHttp` serves, with every check, both lineages, SSE answers, legacy sessions
// and the 2024-11-05 transport), with no listener of its own and no loopback hop. A client that
// goes away drops its request, which cancels the call still running for it.
//
// nodeHandler: `(req, res)` for `http.createServer`, Express (`app.all('/mcp', h)`, or
// `app.use('/mcp', h)`: a mount serves the endpoint at its prefix, `/mcp/sse` and `/mcp/messages`
// for 2024-11-05 clients) and Fastify (`fastify.all('/mcp', h)`: the reply is hijacked). A body
// already parsed by the framework (express.json(), Fastify) is used as parsed.
//
// fetchHandler: `(Request) => Promise<Response>` for Hono (`app.all('/mcp', (c) => h(c.req.raw))`),
// Bun, Deno and other web-standard servers; the request URL's path is matched as it is.
//
// DNS-rebinding protection: a `Host` that is `localhost` or an IP address, and a browser `Origin`
// only when it names the request's own host, unless `allowedHosts`/`allowedOrigins` say otherwise
// (or `anyHost`); docs/deployment.md "DNS rebinding".

const { McpError } = require('./errors');

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

class BodyTooLarge extends Error {}

/** The mounts of one handler, by prefix, made on first use. */
function mounts(server, options) {
  const { maxBody = DEFAULT_MAX_BODY, auth, ...rest } = options;
  const settings = { ...rest, maxBody: options.maxBody };
  if (typeof settings.stateKeys === 'string') settings.stateKeys = [settings.stateKeys];
  const made = new Map();
  const get = (prefix) => {
    let m = made.get(prefix);
    if (!m) {
      m = server._nativeFor(auth).mount(settings, prefix || null);
      made.set(prefix, m);
    }
    return m;
  };
  const close = () => {
    for (const m of made.values()) m.shutdown();
    made.clear();
  };
  return { get, close, maxBody };
}

/** The whole body of a Node request, or the body a framework already parsed. */
async function readBody(req, parsed, maxBody) {
  if (parsed !== undefined && (req.readableEnded || req.complete)) {
    if (Buffer.isBuffer(parsed)) return parsed;
    return Buffer.from(typeof parsed === 'string' ? parsed : JSON.stringify(parsed));
  }
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > maxBody) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function plain(res, status, text) {
  if (!res.headersSent) {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(text);
  } else {
    res.destroy();
  }
}

/** Returns `{ handler, close }` for `server` (a JS `Server`) with serveHttp `options`. */
function createNodeHandler(server, options = {}) {
  const m = mounts(server, options);

  const serve = async (req, res, parsed) => {
    // Express mounted with app.use('/mcp', h): serve the endpoint at the prefix.
    const prefix = req.baseUrl ?? '';
    let path = req.originalUrl ?? req.url;
    if (prefix && (path === prefix || path.startsWith(prefix + '?'))) path = prefix + '/' + path.slice(prefix.length);
    let body;
    try {
      body = await readBody(req, parsed, m.maxBody);
    } catch (e) {
      if (e instanceof BodyTooLarge) return plain(res, 413, 'Payload Too Large: the request body exceeds maxBody');
      return res.destroy();
    }
    // HTTP/2 (node:http2's compatibility API) gives the authority as a pseudo-header only.
    let raw = req.rawHeaders;
    if (req.headers.host === undefined && req.headers[':authority']) raw = [...raw, 'host', req.headers[':authority']];
    const exchange = m.get(prefix).start(req.method, path, raw, body);
    let answer;
    const gone = () => {
      if (answer) answer.close();
      else exchange.abort();
    };
    res.on('close', () => {
      if (!res.writableFinished) gone();
    });
    try {
      answer = await exchange.response();
    } catch (e) {
      if (!res.destroyed) plain(res, 500, `mcpcore: ${e.message}`);
      return;
    }
    if (res.destroyed) return answer.close();
    res.writeHead(answer.status, answer.headers);
    res.flushHeaders?.();
    for (;;) {
      const chunk = await answer.next();
      if (chunk === null) break;
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
      if (res.destroyed) return answer.close();
    }
    res.end();
  };

  const handler = (req, res) => {
    // Fastify: its Request/Reply wrap Node's; take the reply over.
    if (req?.raw && res?.raw && typeof res.hijack === 'function') {
      res.hijack();
      serve(req.raw, res.raw, req.body).catch((e) => plain(res.raw, 500, `mcpcore: ${e.message}`));
      return;
    }
    serve(req, res, req.body).catch((e) => plain(res, 500, `mcpcore: ${e.message}`));
  };

  return { handler, close: async () => m.close() };
}

/** Returns `{ handler, close }`: a `(Request) => Promise<Response>` handler. */
function createFetchHandler(server, options = {}) {
  const m = mounts(server, options);

  const handler = async (request) => {
    const url = new URL(request.url);
    const declared = Number(request.headers.get('content-length') ?? 0);
    if (declared > m.maxBody) return new Response('Payload Too Large: the request body exceeds maxBody', { status: 413 });
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : Buffer.alloc(0);
    if (body.length > m.maxBody) return new Response('Payload Too Large: the request body exceeds maxBody', { status: 413 });
    const raw = [];
    for (const [k, v] of request.headers) raw.push(k, v);
    if (!request.headers.has('host')) raw.push('host', url.host);
    const exchange = m.get('').start(request.method, url.pathname + url.search, raw, body);
    const signal = request.signal;
    const onAbort = () => exchange.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let answer;
    try {
      answer = await exchange.response();
    } catch (e) {
      if (signal?.aborted) return new Response(null, { status: 499 });
      throw new McpError(e.message);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    signal?.addEventListener('abort', () => answer.close(), { once: true });
    const headers = new Headers();
    for (let i = 0; i + 1 < answer.headers.length; i += 2) headers.append(answer.headers[i], answer.headers[i + 1]);
    const empty = answer.status === 204 || answer.status === 304 || request.method === 'HEAD';
    if (empty) {
      answer.close();
      return new Response(null, { status: answer.status, headers });
    }
    const stream = new ReadableStream({
      async pull(controller) {
        const chunk = await answer.next();
        if (chunk === null) controller.close();
        else controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      },
      cancel() {
        answer.close();
      },
    });
    return new Response(stream, { status: answer.status, headers });
  };

  return { handler, close: async () => m.close() };
}

module.exports = { createNodeHandler, createFetchHandler };
