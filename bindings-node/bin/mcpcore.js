#!/usr/bin/env node
'use strict';
// `npx mcpcore ...`: runs the mcpcore CLI of this platform's package (mcpcore-<name>/mcpcore),
// with this process's arguments, stdio and environment, and exits as it exits (signals included).

const { spawn } = require('node:child_process');
const path = require('node:path');
const { platformName, missingPackage } = require('../lib/platform');

const name = platformName();
let cli;
try {
  const dir = path.dirname(require.resolve(`mcpcore-${name}/package.json`));
  cli = path.join(dir, process.platform === 'win32' ? 'mcpcore.exe' : 'mcpcore');
} catch (e) {
  console.error(missingPackage(name, 'mcpcore command', e).message);
  process.exit(1);
}

const child = spawn(cli, process.argv.slice(2), { stdio: 'inherit' });
// Signals the terminal sends to the whole group reach the CLI too; these are forwarded for a
// `kill` aimed at this process alone.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => child.kill(sig));
}
child.on('error', (e) => {
  console.error(`mcpcore: could not run ${cli}: ${e.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});
