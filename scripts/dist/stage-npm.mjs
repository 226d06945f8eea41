#!/usr/bin/env node
// Stages the npm packages of the napi-rs layout for `npm pack` (scripts/dist.sh):
//
//   stage-npm.mjs platform DIR NAME OS CPU LIBC DESC NODE_FILE CLI_FILE [NOTICES]
//     DIR/ is the platform package mcpcore-NAME: package.json (from the template
//     bindings-node/npm/linux-x64-gnu/package.json, with NAME's os/cpu/libc; LIBC "-" for none),
//     a README, NODE_FILE as mcpcore.NAME.node and CLI_FILE as mcpcore (mcpcore.exe on Windows),
//     the CLI that the main package's `mcpcore` bin runs, and NOTICES (the third-party licences
//     of both, scripts/notices.sh) as THIRD_PARTY_NOTICES.txt.
//
//   stage-npm.mjs main DIR PLATFORMS
//     DIR/ is the main package mcpcore: what bindings-node/package.json "files" lists (lib/, bin/,
//     index.js, index.d.ts), README.md, and package.json with every platform package staged in
//     PLATFORMS/ as an optionalDependency at the same version (what `napi pre-publish` adds before
//     a publish). The committed package.json has none: the platform packages are not on a
//     registry, so a checkout's `npm ci` must not ask for them.
import { chmodSync, cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bindings-node');
const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));
const writeJson = (f, v) => writeFileSync(f, JSON.stringify(v, null, 2) + '\n');
const fail = (msg) => {
  console.error(msg);
  process.exit(1);
};

const main = readJson(path.join(pkgDir, 'package.json'));
const template = readJson(path.join(pkgDir, 'npm', 'linux-x64-gnu', 'package.json'));
if (template.version !== main.version) {
  fail(`version drift: ${template.name} ${template.version}, ${main.name} ${main.version} (scripts/version.py check)`);
}

const [mode, dir, ...rest] = process.argv.slice(2);
if (mode === 'platform' && (rest.length === 7 || rest.length === 8)) {
  const [name, os, cpu, libc, desc, nodeFile, cliFile, notices] = rest;
  const nodeName = `mcpcore.${name}.node`;
  const cliName = os === 'win32' ? 'mcpcore.exe' : 'mcpcore';
  const pkg = {
    ...template,
    name: `mcpcore-${name}`,
    os: [os],
    cpu: [cpu],
    main: nodeName,
    files: notices ? [nodeName, cliName, 'THIRD_PARTY_NOTICES.txt'] : [nodeName, cliName],
    description: `The ${desc} native module and CLI of the mcpcore npm package, which installs it; not for direct use.`,
  };
  delete pkg.libc;
  if (libc !== '-') pkg.libc = [libc];
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeJson(path.join(dir, 'package.json'), pkg);
  writeFileSync(
    path.join(dir, 'README.md'),
    `# \`${pkg.name}\`\n\nThe **${desc}** native module of [\`mcpcore\`](https://www.npmjs.com/package/mcpcore), and its ` +
      `\`mcpcore\` command line. \`npm install mcpcore\` installs it as an optional dependency on that platform; ` +
      `do not depend on it directly.\n`,
  );
  cpSync(nodeFile, path.join(dir, nodeName));
  cpSync(cliFile, path.join(dir, cliName));
  chmodSync(path.join(dir, cliName), 0o755);
  if (notices) cpSync(notices, path.join(dir, 'THIRD_PARTY_NOTICES.txt'));
  console.log(`staged ${pkg.name}@${pkg.version} in ${dir}`);
} else if (mode === 'main' && rest.length === 1) {
  const [platforms] = rest;
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) {
    if (main.scripts?.[hook]) fail(`${main.name} has a "${hook}" script: an installed package must not build anything`);
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const entry of [...main.files, 'README.md']) {
    cpSync(path.join(pkgDir, entry), path.join(dir, entry), { recursive: true });
  }
  const optional = { ...(main.optionalDependencies ?? {}) };
  for (const p of readdirSync(platforms).sort()) {
    const platform = readJson(path.join(platforms, p, 'package.json'));
    optional[platform.name] = platform.version;
  }
  if (Object.keys(optional).length === 0) fail(`no platform package in ${platforms}`);
  main.optionalDependencies = optional;
  writeJson(path.join(dir, 'package.json'), main);
  console.log(`staged ${main.name}@${main.version} in ${dir} with ${Object.keys(optional).join(', ')}`);
} else {
  fail('usage: stage-npm.mjs platform DIR NAME OS CPU LIBC DESC NODE_FILE CLI_FILE | main DIR PLATFORMS');
}
