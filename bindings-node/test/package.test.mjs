// Slow: `npm install` of the package folder in a fresh project runs the install script, which
// builds the native module with cargo (forced with MCPCORE_NODE_REBUILD=1), then the package
// loads from CommonJS and ESM. Set MCPCORE_SKIP_SLOW=1 to skip it locally.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pkgDir, run } from './helpers.mjs';

const skip = process.env.MCPCORE_SKIP_SLOW ? 'MCPCORE_SKIP_SLOW is set' : false;

test('npm install of the package folder in a fresh project builds and loads (slow)', { skip, timeout: 900_000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpcore-node-install-'));
  try {
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name: 'fresh-project',
        version: '1.0.0',
        private: true,
        dependencies: { mcpcore: `file:${pkgDir}` },
        allowScripts: { mcpcore: true },
      })
    );
    const install = await run('npm', ['install', '--no-audit', '--no-fund', '--foreground-scripts'], {
      cwd: dir,
      env: { MCPCORE_NODE_REBUILD: '1' },
      timeoutMs: 880_000,
    });
    assert.equal(install.code, 0, install.stderr);
    assert.match(install.stdout + install.stderr, /node scripts\/install\.js/, 'the install script ran');
    assert.equal(realpathSync(path.join(dir, 'node_modules', 'mcpcore')), realpathSync(pkgDir));
    const cjs = `const m = require('mcpcore');
      const s = new m.Server({ name: 'fresh', version: '1' });
      s.tool('echo', {}, ({ text }) => text);
      s.registry.callTool('echo', { text: 'cjs ok' }).then((r) => console.log(r.content[0].text));`;
    const a = await run(process.execPath, ['-e', cjs], { cwd: dir });
    assert.equal(a.stdout, 'cjs ok\n', a.stderr);
    const esm = `import { Server, McpError, version } from 'mcpcore';
      const s = new Server({ name: 'fresh', version: '1' });
      s.tool('echo', {}, ({ text }) => text);
      const r = await s.registry.callTool('echo', { text: 'esm ok ' + version });
      console.log(r.content[0].text, typeof McpError);`;
    const b = await run(process.execPath, ['--input-type=module', '-e', esm], { cwd: dir });
    assert.equal(b.stdout, 'esm ok 0.1.0 function\n', b.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
