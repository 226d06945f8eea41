#!/usr/bin/env node
// The official TypeScript SDK v2's OAuth client (@modelcontextprotocol/client 2.4.0, pinned in
// package.json: an OAuthClientProvider on StreamableHTTPClientTransport) through the whole flow
// against a protected MCP server: on the server's 401 the SDK reads the Protected Resource
// Metadata and the authorization server's metadata and starts the authorization code grant with
// PKCE and `resource`; the user step is scripted (redirectToAuthorization GETs the URL, the test's
// authorization server approves at once and redirects with the code), then finishAuth redeems the
// code and the client connects again. The client is pre-registered (--client-id, public).
//
// Usage: node sdk_oauth_client.mjs --client-id ID URL
//
// Then tools/list, tools/call echo {"text": "hi"} and, when listed, add {"a": 2, "b": 3}; ONE JSON
// line on stdout: {"tools": [sorted names], "echo": "...", "add": <structuredContent>|null,
// "scope": "<granted scope>"}. Exit 1 with one stderr line on failure.
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

const REDIRECT = 'http://127.0.0.1:9/callback';
const args = process.argv.slice(2);
const at = args.indexOf('--client-id');
const clientId = at >= 0 ? args[at + 1] : undefined;
const url = args.filter((_, i) => i !== at && i !== at + 1)[0];
if (!clientId || !url) {
    console.error('usage: node sdk_oauth_client.mjs --client-id ID URL');
    process.exit(2);
}

let tokens;
let verifier;
let callback;
let discovery;
const provider = {
    get redirectUrl() {
        return REDIRECT;
    },
    get clientMetadata() {
        return {
            redirect_uris: [REDIRECT],
            token_endpoint_auth_method: 'none',
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            client_name: 'mcpcore interop (TypeScript SDK)'
        };
    },
    clientInformation: () => ({ client_id: clientId }),
    tokens: () => tokens,
    saveTokens: (t) => {
        tokens = t;
    },
    saveCodeVerifier: (v) => {
        verifier = v;
    },
    codeVerifier: () => verifier,
    // Kept with the verifier, so the SDK can check the callback leg's authorization server.
    saveDiscoveryState: (d) => {
        discovery = d;
    },
    discoveryState: () => discovery,
    redirectToAuthorization: async (authorizationUrl) => {
        const resp = await fetch(authorizationUrl, { redirect: 'manual' });
        const location = resp.headers.get('location');
        if (!location) throw new Error(`the authorization server did not redirect: ${resp.status}`);
        callback = new URL(location).searchParams;
        if (!callback.get('code')) throw new Error(`no code in the redirect: ${location}`);
    }
};

const connect = async () => {
    const client = new Client({ name: 'mcpcore-interop-ts-oauth', version: '0.1.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
    return client;
};

try {
    let client;
    try {
        client = await connect();
    } catch (e) {
        if (!(e instanceof UnauthorizedError) || !callback) throw e;
        const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
        await transport.finishAuth(callback);
        client = await connect();
    }
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    let add = null;
    if (tools.includes('add')) add = (await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).structuredContent ?? null;
    await client.close();
    console.log(JSON.stringify({ tools, echo: echo.content?.[0]?.text ?? null, add, scope: tokens?.scope ?? null }));
    process.exit(0);
} catch (e) {
    console.error(`sdk_oauth_client.mjs: error: ${String(e?.stack ?? e).split('\n')[0]}`);
    process.exit(1);
}
