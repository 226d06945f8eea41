// The client side of the benchmark for the official TypeScript SDK v2 (@modelcontextprotocol/client
// 2.4.0; driver format: _common.mjs). 2026-07-28 is pinned with versionNegotiation {pin}; legacy
// versions use the SDK's default connect (initialize).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { check, conc, main, payload, seq, startupTimes, warm } from './_common.mjs';

const INFO = { name: 'bench-ts-v2-client', version: '0.1.0' };
const options = (v) => (v >= '2026-07-28' ? { versionNegotiation: { mode: { pin: v } } } : {});
const caller = (client) => async (text) => {
  const r = await client.callTool({ name: 'echo', arguments: { text } });
  check(text, r.content?.[0]?.text, r.isError);
};

async function connect(transport, version) {
  const c = new Client(INFO, options(version));
  await c.connect(transport);
  const got = c.getNegotiatedProtocolVersion();
  if (got !== version) throw new Error(`negotiated ${got}, wanted ${version}`);
  return c;
}

async function stdio({ n, inflight, pbytes, pn, starts, version, cmd }) {
  const transport = () => new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: 'inherit', maxBufferSize: 64 << 20 });
  const startup_ms = await startupTimes(starts, async () => {
    const c = await connect(transport(), version);
    await caller(c)('hello');
    return () => c.close();
  });
  const c = await connect(transport(), version);
  const call = caller(c);
  await warm(call);
  const out = { protocol: c.getNegotiatedProtocolVersion(), startup_ms, seq: await seq(call, n), conc: await conc(call, n, inflight) };
  out.payload = await payload(call, pbytes, pn);
  await c.close();
  return out;
}

async function http({ url, version, n, inflight, pbytes, pn }) {
  const c = await connect(new StreamableHTTPClientTransport(new URL(url)), version);
  const call = caller(c);
  await warm(call);
  const out = { protocol: c.getNegotiatedProtocolVersion(), seq: await seq(call, n), conc: await conc(call, n, inflight) };
  out.payload = await payload(call, pbytes, pn);
  await c.close();
  return out;
}

await main({ stdio, http });
