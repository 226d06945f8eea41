// bench/profile/ab_node_async.py's server: an async echo for the A/B: the tool returns a Promise. MCPCORE_LIB = the lib to load.
const { Server } = await import(process.env.MCPCORE_LIB);
const server = new Server({ name: 'ab', version: '1' });
server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, async ({ text }) => text);
await server.serveStdio();
