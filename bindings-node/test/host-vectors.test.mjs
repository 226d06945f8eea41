// The shared host-results vectors (tests/vectors/host-results): a JS value returned by a tool,
// a resource reader, a prompt or a completer becomes exactly the result every other binding
// sends for the same value; and every engine error kind has its own error class.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Registry, McpError } from '../lib/mcpcore.js';

const require = createRequire(import.meta.url);
const native = require('../index.js');
const { CLASSES } = require('../lib/errors.js');
const { nativeCallback } = require('../lib/tools.js');

const vectors = (name) =>
  JSON.parse(readFileSync(new URL(`../../tests/vectors/host-results/${name}.json`, import.meta.url))).cases;

/** A vector's value as JS: `{"$bytes": b64}` is a Uint8Array. */
function jsValue(v) {
  if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && '$bytes' in v) {
    return new Uint8Array(Buffer.from(v.$bytes, 'base64'));
  }
  return Array.isArray(v) ? v.map(jsValue) : v;
}

/** What the wrapper hands the engine for a handler returning `value`. */
const envelope = (value) => nativeCallback(() => value)('{}', null);

for (const c of vectors('tool').filter((c) => !c.wrapped)) {
  test(`tool: ${c.name}`, async () => {
    const registry = new Registry();
    registry.tool('t', { description: 't' }, () => jsValue(c.value));
    const result = await registry.callTool('t', {});
    assert.deepEqual(result, c.expect);
  });
}

for (const [file, kind] of [['resource', 'resource'], ['prompt', 'prompt'], ['completion', 'completer']]) {
  for (const c of vectors(file)) {
    test(`${file}: ${c.name}`, () => {
      const run = () => JSON.parse(native.hostResult(kind, envelope(jsValue(c.value)), c.uri ?? null, c.mime ?? null));
      if (c.expect.error) {
        assert.throws(run);
      } else {
        assert.deepEqual(run(), c.expect);
      }
    });
  }
}

test('every engine error kind has its own error class, with code and data', () => {
  const kinds = native.errorKinds();
  assert.deepEqual(new Set(kinds), new Set(Object.keys(CLASSES)));
  const { fromNative } = require('../lib/errors.js');
  for (const kind of kinds) {
    let caught;
    try {
      native.raiseExample(kind);
    } catch (e) {
      caught = fromNative(e);
    }
    assert.ok(caught instanceof McpError, kind);
    assert.equal(caught.constructor, CLASSES[kind], kind);
    assert.equal(caught.kind, kind);
    assert.notEqual(caught.code, 0, kind);
    if (['rpc', 'resource_not_found', 'http'].includes(kind)) assert.deepEqual(caught.data, { kind }, kind);
    if (kind === 'auth') {
      assert.equal(caught.error, 'invalid_grant');
      assert.equal(caught.errorDescription, 'auth example');
      assert.equal(caught.errorUri, 'https://as.example/errors#invalid_grant');
      assert.equal(caught.httpStatus, 400);
    }
  }
});
