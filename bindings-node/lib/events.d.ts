// The Events extension's types (SEP-3415; docs/events.md): what `Server.event` declares and
// `Server.emit` returns.

/** How an event type can be delivered: `events/poll`, `events/stream`, `events/subscribe`. */
export type DeliveryMode = 'poll' | 'push' | 'webhook';

/** An event type as `Server.event` declares it. */
export interface EventSpec {
  /** What it reports, for a model or a person choosing subscriptions. */
  description?: string;
  /** The JSON Schema of an occurrence's data (default: any object); checked at emit. */
  payload?: { [key: string]: unknown };
  /** The JSON Schema of a subscription's arguments. */
  arguments?: { [key: string]: unknown };
  /** Default `['poll', 'push']`. */
  delivery?: DeliveryMode[];
  /** Occurrences kept for replay from a cursor (default 256). */
  retain?: number;
  /** The `nextPollMs` its polls suggest (default 5000). */
  pollIntervalMs?: number;
  _meta?: { [key: string]: unknown };
}

/** Something that happened, as clients receive it. */
export interface EventOccurrence<T = { [key: string]: unknown }> {
  /** Stable id, for de-duplication (`evt_…`). */
  eventId: string;
  /** The event type. */
  name: string;
  /** When it happened (ISO 8601, UTC). */
  timestamp: string;
  data: T;
}
