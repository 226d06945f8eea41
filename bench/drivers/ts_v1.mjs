// The client side of the benchmark for the official TypeScript SDK v1 (@modelcontextprotocol/sdk
// 1.32.2; driver format: _common.mjs). v1 speaks only the initialize-based lineage.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { check, conc, main, payload, seq, startupTimes, warm } from './_common.mjs';

const INFO = { name: 'bench-ts-v1-client', version: '0.1.0' };
const caller = (client) => async (text) => {
  const r = await client.callTool({ name: 'echo', arguments: { text } });
  check(text, r.content?.[0]?.text, r.isError);
};

async function connect(transport, version) {
  if (version >= '2026-07-28') throw new Error(`not supported by @modelcontextprotocol/sdk 1.32.2: ${version}`);
  const c = new Client(INFO);
  await c.connect(transport);
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
  const out = { protocol: version, startup_ms, seq: await seq(call, n), conc: await conc(call, n, inflight) };
  out.payload = await payload(call, pbytes, pn);
  await c.close();
  return out;
}

async function http({ url, version, n, inflight, pbytes, pn }) {
  const c = await connect(new StreamableHTTPClientTransport(new URL(url)), version);
  const call = caller(c);
  await warm(call);
  const out = { protocol: version, seq: await seq(call, n), conc: await conc(call, n, inflight) };
  out.payload = await payload(call, pbytes, pn);
  await c.close();
  return out;
}

await main({ stdio, http });
