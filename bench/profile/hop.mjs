// bench/profile/hop.mjs: µs a call of an in-process Registry.callTool of a synchronous JS tool
// (JS → engine → JS handler → engine → JS: four thread hand-offs, no I/O), and a setImmediate turn.
import { Registry } from '../../bindings-node/lib/mcpcore.js';
const r = new Registry();
r.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => text);
const n = 20000;
for (let i = 0; i < 2000; i++) await r.callTool('echo', { text: 'hi' });
for (let round = 0; round < 3; round++) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await r.callTool('echo', { text: 'hi' });
  console.log(`node in-process callTool, sync JS tool: ${(Number(process.hrtime.bigint() - t) / 1e3 / n).toFixed(1)} µs/call`);
}
// A bare resolved-promise await and a setImmediate turn, for scale.
let t = process.hrtime.bigint();
for (let i = 0; i < n; i++) await new Promise((res) => setImmediate(res));
console.log(`setImmediate turn: ${(Number(process.hrtime.bigint() - t) / 1e3 / n).toFixed(2)} µs`);
