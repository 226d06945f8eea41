#!/usr/bin/env node
// The example contract's echo server in Node: tools `echo` and `add`.
//
//   node echo_server.mjs                        # stdio, both lineages
//   node echo_server.mjs --http 127.0.0.1:PORT  # HTTP on /mcp (prints "listening on URL")
//   node echo_server.mjs --http 127.0.0.1:PORT --auth-jwks URL --auth-issuer ISS --auth-audience AUD
//
// With the `--auth-*` options (HTTP only) it is an OAuth resource server: every request needs a
// bearer JWT signed with a key of the JWKS at URL, issued by ISS for AUD (the PRM names ISS as
// the authorization server). `echo` needs no scope; `add` needs `mcp:add` and is hidden from
// `tools/list` for tokens without it.
import { parseArgs } from 'node:util';
import { Server } from 'mcpcore';

const fail = (why) => {
  console.error(`echo_server: ${why}`);
  process.exit(2);
};
let values;
try {
  ({ values } = parseArgs({
    options: {
      http: { type: 'string' },
      'auth-jwks': { type: 'string' },
      'auth-issuer': { type: 'string' },
      'auth-audience': { type: 'string' },
    },
  }));
} catch (e) {
  fail(e.message);
}

const server = new Server({ name: 'mcpcore-echo-node', version: '0.1.0' });

server.tool(
  'echo',
  {
    description: 'Returns the text unchanged.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  ({ text }) => text
);

server.tool(
  'add',
  {
    description: 'Adds two numbers.',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  },
  async ({ a, b }) => ({ sum: a + b })
);

const given = [values['auth-jwks'], values['auth-issuer'], values['auth-audience']];
let auth;
if (given.some(Boolean)) {
  if (!given.every(Boolean)) fail('--auth-jwks URL, --auth-issuer ISS and --auth-audience AUD go together');
  // 2026-07-28 basic/authorization: stdio servers take credentials from the environment.
  if (values.http === undefined) fail('--auth-* needs --http (a stdio server takes no bearer tokens)');
  const [jwksUrl, issuer, audience] = given;
  auth = { jwksUrl, issuer, audience, toolScopes: { add: ['mcp:add'] } };
}

if (values.http === undefined) {
  await server.serveStdio();
} else {
  const [host, port] = splitHostPort(values.http);
  const serving = await server.serveHttp({ host, port, auth });
  console.log(`listening on ${serving.url}`);
  const stop = () => serving.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await serving.wait();
}

function splitHostPort(s) {
  const i = s.lastIndexOf(':');
  return [s.slice(0, i).replace(/^\[|\]$/g, ''), Number(s.slice(i + 1))];
}
