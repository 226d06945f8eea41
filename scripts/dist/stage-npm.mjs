#!/usr/bin/env node
// Stages the two npm packages of the napi-rs layout for `npm pack`:
//   STAGE/platform/  bindings-node/npm/linux-x64-gnu/ (package.json with os/cpu/libc, README.md)
//                    plus the release native module NODE_FILE as mcpcore.linux-x64-gnu.node
//   STAGE/main/      what bindings-node/package.json "files" lists (lib/, index.js, index.d.ts),
//                    README.md, and package.json with the platform package added to
//                    optionalDependencies at the same version (what `napi pre-publish` adds before
//                    a publish). The committed package.json has none: the platform package is not
//                    on a registry, so a checkout's `npm ci` must not ask for it.
//
//   node scripts/dist/stage-npm.mjs STAGE NODE_FILE
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [stage, nodeFile] = process.argv.slice(2);
if (!stage || !nodeFile) {
  console.error('usage: stage-npm.mjs STAGE NODE_FILE');
  process.exit(2);
}
const pkgDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bindings-node');
const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));
const writeJson = (f, v) => writeFileSync(f, JSON.stringify(v, null, 2) + '\n');

const main = readJson(path.join(pkgDir, 'package.json'));
const platformDir = path.join(pkgDir, 'npm', 'linux-x64-gnu');
const platform = readJson(path.join(platformDir, 'package.json'));
if (platform.version !== main.version) {
  console.error(`version drift: ${platform.name} ${platform.version}, ${main.name} ${main.version} (scripts/version.py check)`);
  process.exit(1);
}
for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) {
  if (main.scripts?.[hook]) {
    console.error(`${main.name} has a "${hook}" script: an installed package must not build anything`);
    process.exit(1);
  }
}

rmSync(stage, { recursive: true, force: true });
const out = { platform: path.join(stage, 'platform'), main: path.join(stage, 'main') };
mkdirSync(out.platform, { recursive: true });
mkdirSync(out.main, { recursive: true });

cpSync(path.join(platformDir, 'README.md'), path.join(out.platform, 'README.md'));
writeJson(path.join(out.platform, 'package.json'), platform);
cpSync(nodeFile, path.join(out.platform, platform.main));

for (const entry of [...main.files, 'README.md']) {
  cpSync(path.join(pkgDir, entry), path.join(out.main, entry), { recursive: true });
}
main.optionalDependencies = { ...(main.optionalDependencies ?? {}), [platform.name]: platform.version };
writeJson(path.join(out.main, 'package.json'), main);
console.log(`staged ${platform.name}@${platform.version} and ${main.name}@${main.version} in ${stage}`);
