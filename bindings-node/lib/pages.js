'use strict';
// Following `nextCursor` through a list's pages, bounded: the one loop behind every list the
// client reads page by page (tools, resources, templates, prompts, skills, event types).

const { native: awaitNative, makeError } = require('./errors');

/** A server paging forever is refused after this many pages, as the engine refuses it. */
const MAX_PAGES = 1000;

/** The items under `key` of every page `fetchPage(cursor)` resolves to (JSON text), in order. */
async function* pages(fetchPage, key, method) {
  let cursor = null;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = JSON.parse(await awaitNative(fetchPage(cursor)));
    yield* page[key] ?? [];
    cursor = page.nextCursor ?? null;
    if (cursor === null) return;
  }
  throw makeError('protocol', `${method} returned more than ${MAX_PAGES} pages`);
}

/** Every item of an async iterable, in an array. */
async function collect(iterable) {
  const out = [];
  for await (const item of iterable) out.push(item);
  return out;
}

module.exports = { pages, collect };
