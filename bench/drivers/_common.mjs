// Shared by the Node drivers: argument parsing, timing and the one-line JSON output.
// Driver format (every language prints the same; see bench/drivers/_common.py):
//   DRIVER stdio N CONC PAYLOAD_BYTES PAYLOAD_N STARTS VERSION -- CMD [ARGS...]
//   DRIVER http URL VERSION N CONC [PAYLOAD_BYTES PAYLOAD_N]
// A driver module passes {stdio(args), http(args)}; each call(text) must check the echo.

export function stats(lat, secs, inflight) {
  lat.sort((a, b) => a - b);
  const pick = (q) => (lat.length ? lat[Math.round((lat.length - 1) * q)] : 0);
  const out = { n: lat.length, secs, p50_us: pick(0.5), p99_us: pick(0.99) };
  if (inflight !== undefined) out.inflight = inflight;
  return out;
}

const now = () => Number(process.hrtime.bigint()) / 1e3; // µs

export async function seq(call, n) {
  const lat = [];
  const t0 = now();
  for (let i = 0; i < n; i++) {
    const t = now();
    await call('x');
    lat.push(now() - t);
  }
  return stats(lat, (now() - t0) / 1e6);
}

export async function conc(call, n, inflight) {
  const lat = [];
  const worker = async (count) => {
    for (let i = 0; i < count; i++) {
      const t = now();
      await call('x');
      lat.push(now() - t);
    }
  };
  const t0 = now();
  await Promise.all(Array.from({ length: inflight }, (_, w) => worker(Math.floor(n / inflight) + (w < n % inflight ? 1 : 0))));
  return stats(lat, (now() - t0) / 1e6, inflight);
}

export async function payload(call, bytes, n) {
  const big = 'x'.repeat(bytes);
  const t0 = now();
  for (let i = 0; i < n; i++) await call(big);
  return { bytes, n, secs: (now() - t0) / 1e6 };
}

export function check(text, got, isError) {
  if (isError || got !== text) throw new Error(`bad echo result: isError=${isError} text=${String(got).slice(0, 100)}`);
}

export async function warm(call) {
  for (let i = 0; i < 20; i++) await call('warm-up');
}

/** W5: `once()` spawns, connects and makes the first call, and returns its client's `close`;
 * the time stops before that close, as in the Rust and Python drivers. */
export async function startupTimes(starts, once) {
  const out = [];
  for (let i = 0; i < starts; i++) {
    const t = now();
    const close = await once();
    out.push((now() - t) / 1e3);
    await close();
  }
  return out;
}

export async function main({ stdio, http }) {
  const argv = process.argv.slice(2);
  const timer = setTimeout(() => {
    console.error(`${process.argv[1]}: timed out`);
    process.exit(1);
  }, 600_000);
  try {
    let out;
    if (argv[0] === 'stdio') {
      const dash = argv.indexOf('--');
      const [n, inflight, pbytes, pn, starts] = argv.slice(1, 6).map(Number);
      out = await stdio({ n, inflight, pbytes, pn, starts, version: argv[6], cmd: argv.slice(dash + 1) });
    } else if (argv[0] === 'http') {
      const [pbytes, pn] = argv.length > 6 ? [Number(argv[5]), Number(argv[6])] : [0, 0];
      out = await http({ url: argv[1], version: argv[2], n: Number(argv[3]), inflight: Number(argv[4]), pbytes, pn });
    } else throw new Error('usage: DRIVER stdio N CONC PBYTES PN STARTS VERSION -- CMD | http URL VERSION N CONC [PBYTES PN]');
    console.log(JSON.stringify(out));
    clearTimeout(timer);
    process.exit(0);
  } catch (e) {
    console.error(`${process.argv[1]}: ${e?.stack ?? e}`);
    process.exit(1);
  }
}
