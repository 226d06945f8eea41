'use strict';
// Which platform package holds this machine's native module and CLI: `mcpcore-<name>`, where
// <name> is the napi-rs platform name (linux-x64-gnu, linux-arm64-musl, win32-x64-gnu,
// darwin-arm64, ...). scripts/dist/targets.sh builds one package per name in SUPPORTED.

const { readFileSync } = require('node:fs');

/** The platform names mcpcore publishes a package for. */
const SUPPORTED = [
  'linux-x64-gnu',
  'linux-arm64-gnu',
  'linux-x64-musl',
  'linux-arm64-musl',
  'win32-x64-gnu',
  'darwin-arm64',
  'darwin-x64',
];

/** Whether this Linux runs on musl (Alpine): the C library Node itself was linked with. */
function isMusl() {
  try {
    const report = process.report && process.report.getReport();
    if (report && report.header) return !report.header.glibcVersionRuntime;
  } catch {
    // fall through to ldd
  }
  try {
    return readFileSync('/usr/bin/ldd', 'utf8').includes('musl');
  } catch {
    return false;
  }
}

/** The napi-rs platform name of this process (`linux-x64-gnu`, `win32-x64-gnu`, ...). */
function platformName() {
  const { platform, arch } = process;
  if (platform === 'linux') return `linux-${arch}-${isMusl() ? 'musl' : 'gnu'}`;
  // One Windows build, GNU ABI (mingw-w64): it loads in the MSVC-built Node of nodejs.org too,
  // since a Node-API module only calls the C API of node.exe.
  if (platform === 'win32') return `win32-${arch}-gnu`;
  return `${platform}-${arch}`;
}

/** The words for this platform in an error: `linux-x64-gnu (Node v20.20.2, linux x64)`. */
function describe(name) {
  return `${name} (Node ${process.version}, ${process.platform} ${process.arch})`;
}

/**
 * The error for a missing platform package: names the platform and the package to install, or
 * says that mcpcore has no build for this platform.
 */
function missingPackage(name, what, cause) {
  const pkg = `mcpcore-${name}`;
  const msg = SUPPORTED.includes(name)
    ? `mcpcore: the ${what} for ${describe(name)} is in the package ${pkg}, which is not installed. ` +
      `npm installs it with mcpcore unless optional dependencies were left out (--omit=optional, ` +
      `--no-optional, a lockfile made on another platform): run \`npm install ${pkg}\`.`
    : `mcpcore: no prebuilt ${what} for ${describe(name)}; mcpcore is built for ${SUPPORTED.join(', ')}. ` +
      `Build it from source: see CONTRIBUTING.md (napi build --platform in bindings-node).`;
  const err = new Error(msg);
  err.code = 'MCPCORE_NO_NATIVE';
  if (cause) err.cause = cause;
  return err;
}

module.exports = { SUPPORTED, isMusl, platformName, describe, missingPackage };
