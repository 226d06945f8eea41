'use strict';
// A spawned server's stdout read by libuv on this thread, each chunk handed to the native client,
// which dispatches its frames here: a call's answer settles its Promise where it is read, with no
// worker thread woken to read the pipe and none to hand the answer back (issue 47 step 2).

const net = require('node:net');
const fs = require('node:fs');

/** Takes the stdout of a server the native client just spawned (a `StdoutFeed`) and reads it. */
function attachStdout(feed) {
  const fd = feed.takeFd();
  if (fd < 0) return;
  let socket;
  try {
    // allowHalfOpen: nothing is written to this pipe, so nothing is ended on its end of file.
    socket = new net.Socket({ fd, readable: true, writable: false, allowHalfOpen: true });
  } catch {
    try {
      fs.closeSync(fd);
    } catch {}
    feed.end();
    return;
  }
  // An idle client does not keep the process alive; a call in flight does (its Promise).
  socket.unref();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    feed.end();
    socket.destroy();
  };
  socket.on('data', (chunk) => {
    if (!ended) feed.push(chunk);
  });
  socket.on('end', end);
  socket.on('error', end);
  socket.on('close', end);
}

module.exports = { attachStdout };
