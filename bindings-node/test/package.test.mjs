// The package as npm would publish it, and the developer path of a checkout. The installs of the
// packed tarballs (main + platform package, Node 20 and 22, no cargo) are scripts/install-test.sh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync, rmSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pkgDir, run } from './helpers.mjs';

const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
const platform = JSON.parse(readFileSync(path.join(pkgDir, 'npm', 'linux-x64-gnu', 'package.json'), 'utf8'));

/** PATH without the directories that hold cargo or rustc. */
function pathWithoutCargo() {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((d) => d && !['cargo', 'rustc'].some((b) => existsSync(path.join(d, b))))
    .join(path.delimiter);
}

test('the main package builds nothing on install and needs no build tool', () => {
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) {
    assert.equal(pkg.scripts?.[hook], undefined, `no "${hook}" script`);
  }
  assert.deepEqual(Object.keys(pkg.dependencies ?? {}), [], 'no runtime dependencies');
  assert.ok(pkg.devDependencies['@napi-rs/cli'], '@napi-rs/cli is a devDependency');
});

test('npm pack ships the JS, the types, the loader and the CLI shim, no native module and no Rust sources', async () => {
  const r = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: pkgDir });
  assert.equal(r.code, 0, r.stderr);
  const files = JSON.parse(r.stdout)[0].files.map((f) => f.path).sort();
  for (const f of ['index.js', 'index.d.ts', 'lib/mcpcore.js', 'lib/mcpcore.d.ts', 'lib/client.d.ts', 'lib/auth.d.ts', 'lib/native.js', 'bin/mcpcore.js', 'package.json', 'README.md']) {
    assert.ok(files.includes(f), `${f} is packed (${files.join(', ')})`);
  }
  const unwanted = files.filter((f) => f.endsWith('.node') || f.startsWith('src/') || f === 'Cargo.toml' || f.startsWith('test/'));
  assert.deepEqual(unwanted, []);
});

test('the platform package is the napi-rs one the loader asks for', () => {
  assert.equal(platform.name, `${pkg.name}-linux-x64-gnu`);
  assert.equal(platform.version, pkg.version);
  assert.deepEqual([platform.os, platform.cpu, platform.libc], [['linux'], ['x64'], ['glibc']]);
  assert.equal(platform.main, 'mcpcore.linux-x64-gnu.node');
  assert.deepEqual(platform.files, [platform.main, 'mcpcore'], 'the native module and the CLI');
  const loader = readFileSync(path.join(pkgDir, 'index.js'), 'utf8');
  assert.match(loader, /require\('mcpcore-linux-x64-gnu'\)/);
  assert.match(loader, new RegExp(`bindingPackageVersion !== '${pkg.version.replace(/\./g, '\\.')}'`));
});

test('a checkout installs as a folder link in a fresh project (no cargo on PATH, no build) and loads', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpcore-node-link-'));
  try {
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'fresh-project', version: '1.0.0', private: true, dependencies: { mcpcore: `file:${pkgDir}` } })
    );
    const env = { PATH: pathWithoutCargo() };
    const install = await run('npm', ['install', '--no-audit', '--no-fund', '--foreground-scripts'], { cwd: dir, env, timeoutMs: 120_000 });
    assert.equal(install.code, 0, install.stderr);
    assert.equal(realpathSync(path.join(dir, 'node_modules', 'mcpcore')), realpathSync(pkgDir));
    const cjs = `const m = require('mcpcore');
      const s = new m.Server({ name: 'fresh', version: '1' });
      s.tool('echo', {}, ({ text }) => text);
      s.registry.callTool('echo', { text: 'cjs ok' }).then((r) => console.log(r.content[0].text));`;
    const a = await run(process.execPath, ['-e', cjs], { cwd: dir, env });
    assert.equal(a.stdout, 'cjs ok\n', a.stderr);
    const esm = `import { Server, McpError, version } from 'mcpcore';
      const s = new Server({ name: 'fresh', version: '1' });
      s.tool('echo', {}, ({ text }) => text);
      const r = await s.registry.callTool('echo', { text: 'esm ok ' + version });
      console.log(r.content[0].text, typeof McpError);`;
    const b = await run(process.execPath, ['--input-type=module', '-e', esm], { cwd: dir, env });
    assert.equal(b.stdout, `esm ok ${pkg.version} function\n`, b.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the loader and `mcpcore` bin name the platform package that is missing', async () => {
  const { platformName, SUPPORTED } = require('../lib/platform');
  const name = platformName();
  assert.ok(SUPPORTED.includes(name), `${name} is one of ${SUPPORTED}`);
  assert.equal(pkg.bin.mcpcore, 'bin/mcpcore.js');
  // The package as installed with no platform package: lib/ and bin/ copied alone.
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpcore-no-platform-'));
  try {
    const root = path.join(dir, 'node_modules', 'mcpcore');
    for (const entry of ['lib', 'bin', 'index.js', 'package.json']) {
      cpSync(path.join(pkgDir, entry), path.join(root, entry), { recursive: true });
    }
    const load = await run(process.execPath, ['-e', "require('mcpcore')"], { cwd: dir, env: { PATH: process.env.PATH } });
    assert.notEqual(load.code, 0);
    assert.match(load.stderr, new RegExp(`native module for ${name} .* in the package mcpcore-${name}, which is not installed`));
    assert.match(load.stderr, new RegExp(`npm install mcpcore-${name}`));
    const bin = await run(process.execPath, [path.join(root, 'bin', 'mcpcore.js'), '--version'], { cwd: dir });
    assert.equal(bin.code, 1);
    assert.match(bin.stderr, new RegExp(`mcpcore command for ${name} .* mcpcore-${name}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
