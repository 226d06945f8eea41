'use strict';
// Serving stdio from the JS thread: libuv reads stdin (process.stdin's 'data' events) and each
// chunk goes to the native StdioConnection, which serves its frames on this thread
// (src/stdio.rs): a handler that answers at once is called in place and its answer written to
// stdout from here, so a call costs no hand-off between threads (bench/NOTES.md).

const { native: awaitNative } = require('./errors');

/**
 * Serves `target` (a native Server) on this process's stdin/stdout until stdin ends and the
 * requests in flight are answered. Rejects as `openStdio` does (a protected server without a
 * valid MCP_ACCESS_TOKEN).
 */
async function serveStdio(target, stdin = process.stdin) {
  // Calls waiting for a handler's Promise go on here, on the JS thread (src/local.rs).
  let conn = null;
  conn = await awaitNative(target.openStdio(() => conn.runReady()));
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    conn.end();
  };
  const onData = (chunk) => {
    if (ended) return;
    if (!conn.feed(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) end();
  };
  stdin.on('data', onData);
  stdin.on('end', end);
  stdin.on('close', end);
  stdin.on('error', end);
  try {
    await awaitNative(conn.done());
  } finally {
    stdin.off('data', onData);
    stdin.off('end', end);
    stdin.off('close', end);
    stdin.off('error', end);
    // Reading stops, so nothing of serving keeps the process alive.
    stdin.pause();
  }
}

module.exports = { serveStdio };
