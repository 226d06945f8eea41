// Wall and CPU time of the Node client's sequential calls against a stdio server, for A/Bs of
// two `.node` builds (NAPI_RS_NATIVE_LIBRARY_PATH picks one):
//   NAPI_RS_NATIVE_LIBRARY_PATH=before.node node bench/profile/node_client_cpu.mjs SERVER [N]
// Prints {"us": wall µs a call, "cpu": CPU µs of this process (every thread) a call}.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { Client } = require(path.join(here, '..', '..', 'bindings-node', 'lib', 'mcpcore.js'));
const [server, n = '5000'] = process.argv.slice(2);
const N = Number(n);
const c = await Client.connectStdio(server, [], { protocolVersion: '2025-11-25' });
for (let i = 0; i < 500; i++) await c.callTool('echo', { text: 'hi' });
const u0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < N; i++) await c.callTool('echo', { text: 'hi' });
const t1 = performance.now();
const u = process.cpuUsage(u0);
console.log(JSON.stringify({ us: +(((t1 - t0) * 1000) / N).toFixed(1), cpu: +((u.user + u.system) / N).toFixed(1) }));
await c.close();
