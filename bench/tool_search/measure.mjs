// Tool search on W9's 1,000-tool catalogue (issue 35): what `tools/list` costs a client in bytes
// and in o200k_base tokens (js-tiktoken, ranks bundled in the package) with every tool listed and
// in tool search mode; search_tools latency (p50/p90 over the labelled queries, 5 rounds, one
// stdio connection); recall@5 on queries.json.
//
//   cd bench/tool_search && npm ci && node measure.mjs [path/to/echo_server]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { Client } from 'mcpcore';

const here = fileURLToPath(new URL('.', import.meta.url));
const server = process.argv[2] ?? `${here}../../target/release/echo_server`;
const enc = new Tiktoken(o200k);
const { queries } = JSON.parse(readFileSync(`${here}queries.json`, 'utf8'));

async function listing(args) {
  const client = await Client.connectStdio(server, args, { protocolVersion: '2026-07-28' });
  const tools = await client.listTools();
  // What a host puts in the model's context: the tool descriptors as JSON.
  const text = JSON.stringify(tools);
  return { client, count: tools.length, bytes: Buffer.byteLength(text), tokens: enc.encode(text).length };
}

const pct = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

const full = await listing(['--synthetic-tools', '1000']);
await full.client.close();
const search = await listing(['--synthetic-tools', '1000', '--tool-search']);
let hits = 0;
const misses = [];
const micros = [];
for (let round = 0; round < 5; round++) {
  for (const { query, expect } of queries) {
    const t0 = process.hrtime.bigint();
    const r = await search.client.callTool('search_tools', { query, limit: 5 });
    micros.push(Number(process.hrtime.bigint() - t0) / 1000);
    if (round > 0) continue;
    const names = r.structuredContent.tools.map((t) => t.name);
    if (names.includes(expect)) hits++;
    else misses.push({ query, expect, got: names });
  }
}
const one = await search.client.callTool('search_tools', { query: queries[0].query, limit: 5 });
const answer = JSON.stringify(one.structuredContent);
await search.client.close();
const out = {
  catalogue: full.count,
  full: { tools: full.count, bytes: full.bytes, tokens: full.tokens },
  toolSearch: { tools: search.count, bytes: search.bytes, tokens: search.tokens },
  searchAnswer: { bytes: Buffer.byteLength(answer), tokens: enc.encode(answer).length },
  latencyMicros: { p50: Math.round(pct(micros, 0.5)), p90: Math.round(pct(micros, 0.9)), n: micros.length },
  recallAt5: { hits, of: queries.length, misses },
};
console.log(JSON.stringify(out, null, 2));
