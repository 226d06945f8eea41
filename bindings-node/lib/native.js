'use strict';
// The native module (napi-rs), loaded once for every lib/ file.
//
// In an installed package it comes from the platform package `mcpcore-<name>` (lib/platform.js),
// an optionalDependency that npm installs on its platform only. In a checkout it is the
// `mcpcore.<name>.node` that `napi build --platform` wrote next to index.js, or the file
// NAPI_RS_NATIVE_LIBRARY_PATH names; napi-rs's generated loader (index.js) finds both. A missing
// platform package is an error that names the platform and the package to install.

const { existsSync } = require('node:fs');
const path = require('node:path');
const { platformName, missingPackage } = require('./platform');

function load() {
  const name = platformName();
  const local = path.join(__dirname, '..', `mcpcore.${name}.node`);
  if (process.env.NAPI_RS_NATIVE_LIBRARY_PATH || existsSync(local)) return require('../index.js');
  const pkg = `mcpcore-${name}`;
  try {
    return require(pkg);
  } catch (e) {
    // Only the package itself missing; a package that is there but fails to load says why.
    if (e && e.code === 'MODULE_NOT_FOUND' && String(e.message).includes(`'${pkg}'`)) {
      throw missingPackage(name, 'native module', e);
    }
    throw e;
  }
}

module.exports = load();
