// Shared test helpers: paths, child processes that print "listening on URL", Rust binaries.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const pkgDir = path.join(here, '..');
export const repo = path.join(pkgDir, '..');
export const toolbox = path.join(here, 'servers', 'toolbox.mjs');
export const examples = path.join(repo, 'examples', 'node');
export const targetDir = process.env.CARGO_TARGET_DIR ?? path.join(repo, 'target');

/** A Rust binary of the workspace (built by `cargo build --workspace --bins`). */
export function rustBin(name) {
  const p = path.join(targetDir, 'debug', name);
  if (!existsSync(p)) throw new Error(`${p} is missing: run cargo build --workspace --bins first`);
  return p;
}

/**
 * Spawns `cmd args` and resolves once a stdout line matches `pattern` (default `listening on
 * URL`), to `{ child, url, match, stop }`.
 */
export function spawnListening(cmd, args, { pattern = /(?:listening on|READY) (\S+)/, env, cwd, timeoutMs = 20000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env }, cwd });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} printed no ${pattern} within ${timeoutMs} ms; stderr: ${err}`));
    }, timeoutMs);
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(pattern);
      if (m) {
        clearTimeout(timer);
        const stop = () =>
          new Promise((r) => {
            if (child.exitCode !== null || child.signalCode !== null) return r();
            child.once('exit', () => r());
            child.kill('SIGTERM');
          });
        resolve({ child, url: m[1], match: m, stop });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} exited with ${code} before listening; stderr: ${err}`));
    });
  });
}

/** Runs a command to completion: `{ code, stdout, stderr }`. */
export function run(cmd, args, { env, cwd, timeoutMs = 60000, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, cwd });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} took longer than ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr });
    });
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
  });
}

/** The text of a CallToolResult. */
export const textOf = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
