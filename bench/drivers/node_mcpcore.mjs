// The client side of the benchmark for mcpcore in Node (driver format: _common.mjs).
import { Client } from 'mcpcore';
import { check, conc, main, payload, seq, startupTimes, warm } from './_common.mjs';

const lineage = (v) => (v >= '2026-07-28' ? 'modern' : 'legacy');
const caller = (client) => async (text) => {
  const r = await client.callTool('echo', { text });
  check(text, r.content?.[0]?.text, r.isError);
};

async function stdio({ n, inflight, pbytes, pn, starts, version, cmd }) {
  const connect = () => Client.connectStdio(cmd, [], { protocolVersion: version, lineage: lineage(version) });
  const startup_ms = await startupTimes(starts, async () => {
    const c = await connect();
    await caller(c)('hello');
    return () => c.close();
  });
  const c = await connect();
  const call = caller(c);
  await warm(call);
  const out = { protocol: c.protocolVersion, startup_ms, seq: await seq(call, n), conc: await conc(call, n, inflight) };
  out.payload = await payload(call, pbytes, pn);
  await c.close();
  return out;
}

async function http({ url, version, n, inflight, pbytes, pn }) {
  const c = await Client.connectHttp(url, { protocolVersion: version, lineage: lineage(version) });
  const call = caller(c);
  await warm(call);
  const out = { protocol: c.protocolVersion, seq: await seq(call, n), conc: await conc(call, n, inflight) };
  out.payload = await payload(call, pbytes, pn);
  await c.close();
  return out;
}

await main({ stdio, http });
