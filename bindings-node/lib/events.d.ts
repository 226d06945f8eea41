// The Events extension's types (SEP-3415; docs/events.md): what `Server.event` declares and
// `Server.emit` returns.

/** How an event type can be delivered: `events/poll`, `events/stream`, `events/subscribe`. */
export type DeliveryMode = 'poll' | 'push' | 'webhook';

/** An event type as `events/list` shows it. */
export interface EventType {
  name: string;
  description?: string;
  delivery: DeliveryMode[];
  inputSchema: { [key: string]: unknown };
  payloadSchema: { [key: string]: unknown };
  _meta?: { [key: string]: unknown };
}

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
  /**
   * Subscription arguments that filter occurrences: a subscription giving one receives only
   * the occurrences whose data has the same value there (poll, stream and webhook alike).
   */
  filterOn?: string[];
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

/** An `events/poll` result. */
export interface PollResult {
  events: Array<EventOccurrence & { cursor?: string }>;
  /** Where the next poll starts; null for a type without replay. */
  cursor: string | null;
  truncated: boolean;
  hasMore: boolean;
  nextPollMs?: number;
}

/** What an events stream delivers. */
export type StreamItem =
  | { type: 'active'; cursor: string | null; truncated: boolean }
  | ({ type: 'event'; cursor?: string } & EventOccurrence)
  | { type: 'heartbeat'; cursor: string | null }
  | { type: 'error' | 'terminated'; error: { code: number; message: string; data?: unknown } };

/** An open `events/stream` (`Client.streamEvents`). */
export class EventStream implements AsyncIterable<StreamItem> {
  private constructor();
  /** Where the stream stands: open a new one from here to miss nothing. */
  readonly cursor: string | null;
  /** The next item, or null once the stream ended. */
  next(): Promise<StreamItem | null>;
  [Symbol.asyncIterator](): AsyncIterator<StreamItem>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** What `events/subscribe` granted. */
export interface WebhookGrant {
  id: string;
  /** ISO 8601; null: no expiry. */
  refreshBefore: string | null;
  cursor: string | null;
  truncated: boolean;
}

/** What `WebhookReceiver.receive` found in one POST. */
export interface ReceivedDelivery {
  /** The HTTP status to answer with. */
  status: number;
  /** The body to answer with (a verification's challenge). */
  body: string;
  /** Null when refused (401: signature or timestamp; 400: malformed). */
  delivery:
    | ({ type: 'event' } & EventOccurrence)
    | { type: 'gap'; cursor: string | null }
    | { type: 'terminated'; error: { code: number; message: string; data?: unknown } }
    | { type: 'verification' | 'duplicate' }
    | null;
  subscriptionId: string | null;
}

/** The receiving end of webhook deliveries: signature and timestamp checked, the challenge
 * answered, retries dropped. */
export class WebhookReceiver {
  constructor(secret: string, ...alsoAccept: string[]);
  receive(headers: Record<string, string | string[] | undefined>, body: Uint8Array | string): ReceivedDelivery;
  /** A `(req, res)` handler for `node:http` or Express (before any body parser). */
  nodeHandler(
    onDelivery: (delivery: Exclude<ReceivedDelivery['delivery'], null>, subscriptionId: string | null) => void | Promise<void>
  ): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
}
