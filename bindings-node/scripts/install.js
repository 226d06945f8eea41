#!/usr/bin/env node
// npm's `install` hook: builds the native module (debug; MCPCORE_NODE_RELEASE=1 for release)
// unless a prebuilt one is already next to package.json and MCPCORE_NODE_REBUILD is unset.
// Installing the folder or a source tarball therefore needs cargo; a tarball packed after a
// build (`npm pack`) installs without one.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const prebuilt = fs.readdirSync(root).some((f) => f.startsWith('mcpcore.') && f.endsWith('.node'));
if (prebuilt && !process.env.MCPCORE_NODE_REBUILD) process.exit(0);
if (!fs.existsSync(path.join(root, 'src', 'lib.rs'))) {
  console.error('mcpcore: no prebuilt native module and no Rust sources to build one from');
  process.exit(1);
}
const cliPkg = require.resolve('@napi-rs/cli/package.json', { paths: [root] });
const cli = path.join(path.dirname(cliPkg), require(cliPkg).bin.napi);
const args = [cli, 'build', '--platform'];
if (process.env.MCPCORE_NODE_RELEASE) args.push('--release');
const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
