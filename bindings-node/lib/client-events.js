'use strict';
// The Events extension on the client (SEP-3415; docs/events.md): the methods `client.js` adds
// to `Client`, and `EventStream`. The rules (the poll floor, cursors, what a stream item is)
// are the core's; this only converts.

const errors = require('./errors');

const { native: awaitNative, nativeSync } = errors;
const { pages, collect } = require('./pages');
const args = (a) => JSON.stringify(a ?? {});

/**
 * An open `events/stream`: `for await (const item of stream)` yields objects whose `type` is
 * `'active'` (`cursor`, `truncated`), `'event'` (an occurrence: `eventId`, `name`,
 * `timestamp`, `data`, `cursor`), `'heartbeat'` (`cursor`), `'error'` or `'terminated'`
 * (`error`). `cursor` is where it stands: open a new stream from it after this one ended to
 * miss nothing.
 */
class EventStream {
  /** @internal */
  constructor(native) {
    this._native = native;
  }

  /** Where the stream stands. */
  get cursor() {
    return this._native.cursor ?? null;
  }

  /** The next item, or null once the stream ended. */
  async next() {
    const text = await awaitNative(this._native.next());
    return text == null ? null : JSON.parse(text);
  }

  async *[Symbol.asyncIterator]() {
    for (let item = await this.next(); item !== null; item = await this.next()) yield item;
  }

  /** Ends the stream. */
  close() {
    return awaitNative(this._native.close());
  }

  async [Symbol.asyncDispose]() {
    await this.close();
  }
}

/** The events methods of `Client` (installed on its prototype by client.js). */
const methods = {
  /** The server's Events extension settings (`{listChanged}`), or null when it declared none. */
  eventsSupport() {
    const text = nativeSync(() => this._native.eventsSupport());
    return text == null ? null : JSON.parse(text);
  },

  /** Every event type the server lists (following `nextCursor`, at most 1000 pages). */
  async listEvents() {
    return collect(pages((cursor) => this._native.listEventsPage(cursor), 'events', 'events/list'));
  },

  /** One `events/poll` (`cursor` null: from now): `{events, cursor, truncated, hasMore, nextPollMs}`. */
  async pollEvents(name, { arguments: a, cursor = null, maxEvents } = {}) {
    return JSON.parse(await awaitNative(this._native.pollEvents(name, args(a), cursor, maxEvents)));
  },

  /**
   * Polls `name` on and on: `for await (const result of client.poller(name))`; between two polls
   * it waits as the server asked (`nextPollMs`, at least a second; not at all after `hasMore`).
   */
  async *poller(name, { arguments: a, cursor = null } = {}) {
    const p = nativeSync(() => this._native.poller(name, args(a), cursor));
    for (;;) yield JSON.parse(await awaitNative(p.next()));
  },

  /**
   * Opens an `events/stream` of `name` from `cursor` (null: from now); resolves once the server
   * says it is active (its first item). An unknown type, bad arguments or a bad cursor reject
   * with the server's code.
   */
  async streamEvents(name, { arguments: a, cursor = null } = {}) {
    return new EventStream(await awaitNative(this._native.streamEvents(name, args(a), cursor)));
  },

  /**
   * Creates or refreshes the webhook subscription of `name` to `url`, signed with `secret`
   * (`whsec_` and the base64 of 24 to 64 random bytes), for `ttlMs` (default: the server's).
   * Resolves to `{id, refreshBefore, cursor, truncated}`; subscribe again before
   * `refreshBefore` to keep it.
   */
  async subscribeWebhook(name, url, secret, { arguments: a, ttlMs } = {}) {
    return JSON.parse(await awaitNative(this._native.subscribeWebhook(name, args(a), url, secret, ttlMs)));
  },

  /** Ends the webhook subscription of `name` with `arguments` to `url`. */
  async unsubscribeWebhook(name, url, { arguments: a } = {}) {
    await awaitNative(this._native.unsubscribeWebhook(name, args(a), url));
  },
};

module.exports = { EventStream, methods };
