// The client (lib/client.js): connecting to a server, its options, and what its calls return.
import type { AppView, CallToolResult, ElicitationAnswer, ElicitationParams, Prompt, ResourceContents, ResourceDescriptor, RootSpec, SamplingAnswer, SamplingParams, Skill, SubscriptionFilter, Tool } from './mcpcore';
import type { OAuth } from './auth';

export interface ClientOptions {
  protocolVersion?: string;
  lineage?: 'modern' | 'legacy';
  /** Bounds the whole connect, and is each request's default timeout (60000). */
  timeoutMs?: number;
  /** How long the 2026-07-28 probe waits before assuming a legacy server (5000, at most half
   * `timeoutMs`). */
  probeTimeoutMs?: number;
  /** Answers `elicitation/create` (declares the capability; URL mode too unless
   * `urlElicitation: false`). */
  onElicitation?: (params: ElicitationParams) => MaybePromise<ElicitationAnswer>;
  urlElicitation?: boolean;
  /** Answers `sampling/createMessage` (declares the capability). */
  onSampling?: (params: SamplingParams) => MaybePromise<SamplingAnswer>;
  /** The roots (declares the capability): a list the client keeps (`setRoots` changes it), or
   * a function called for each `roots/list` (call `rootsChanged()` when its answer changes). */
  roots?: RootSpec[] | (() => MaybePromise<RootSpec[]>);
}
export interface StdioOptions extends ClientOptions {
  env?: Record<string, string>;
  cwd?: string;
  inheritStderr?: boolean;
}
export interface HttpOptions extends ClientOptions {
  headers?: Record<string, string>;
  bearerToken?: string;
  transport?: 'auto' | 'streamable' | 'sse';
  /** OAuth 2.1: authorize when the server answers 401 (or 403 insufficient_scope). */
  auth?: OAuth;
  /** HTTPS: a PEM file of extra trusted CAs (added to the platform's roots). */
  caFile?: string;
  /** HTTPS: a PEM client certificate for servers that require one (with `clientKey`). */
  clientCert?: string;
  /** HTTPS: the PEM key of `clientCert`. */
  clientKey?: string;
}


export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}
/** RFC 5424 levels, lowest first. */
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
export interface LogMessage {
  level: LogLevel;
  logger?: string;
  data: unknown;
}
export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  /** 2026-07-28: ask for the tool's log messages at this level and above (see `onLog`). */
  logLevel?: LogLevel;
}

/** What a task is doing (`Task.status()`). */
export interface TaskStatus {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string | null;
  pollIntervalMs?: number | null;
  ttlMs?: number | null;
}
/** A task the server runs for a tool call (`callTool(name, args, { task: true })`). */
export class Task {
  /** Undefined when the server answered at once instead of creating a task. */
  readonly id: string | undefined;
  status(): Promise<TaskStatus>;
  /** The tool's result once the task ends (a failed task rejects, a cancelled one with
   * RequestCancelled). */
  result(): Promise<CallToolResult>;
  cancel(): Promise<void>;
}
export interface GetPromptResult {
  description?: string;
  messages: { role: 'user' | 'assistant'; content: unknown }[];
  [key: string]: unknown;
}

/** A Server Card (SEP-2127, `application/mcp-server-card+json`). */
export interface ServerCard {
  $schema: string;
  name: string;
  version: string;
  description: string;
  title?: string;
  websiteUrl?: string;
  icons?: { src: string; mimeType?: string; sizes?: string[]; theme?: 'light' | 'dark' }[];
  remotes?: { type: 'streamable-http' | 'sse'; url: string; supportedProtocolVersions?: string[]; [key: string]: unknown }[];
  [key: string]: unknown;
}

export class Client {
  /** `command` is a program (with `args`), `[program, ...args]`, or one command line
   * (`'node server.js --flag'`, split like a shell would, without expansion). */
  static connectStdio(command: string | string[], args?: string[], options?: StdioOptions): Promise<Client>;
  static connectStdio(command: string | string[], options?: StdioOptions): Promise<Client>;
  static connectHttp(url: string, options?: HttpOptions): Promise<Client>;
  /** The Server Card of the endpoint `url` (`GET <url>/server-card`, SEP-2127), read before
   * connecting; unverified. Rejects with HttpError (404) when the server has none. */
  static serverCard(url: string, options?: Pick<HttpOptions, 'headers' | 'bearerToken' | 'caFile'>): Promise<ServerCard>;
  /** Still readable after `close()`, like the other negotiated values. */
  readonly protocolVersion: string;
  readonly lineage: 'modern' | 'legacy';
  readonly serverInfo: { name: string; version: string; [key: string]: unknown } | undefined;
  readonly serverCapabilities: { [capability: string]: unknown };
  readonly instructions: string | undefined;
  /** Every page (cached while the server says it is fresh); `tools()` yields them one page at a time. */
  listTools(): Promise<Tool[]>;
  tools(): AsyncGenerator<Tool>;
  listResources(): Promise<ResourceDescriptor[]>;
  resources(): AsyncGenerator<ResourceDescriptor>;
  listResourceTemplates(): Promise<ResourceDescriptor[]>;
  resourceTemplates(): AsyncGenerator<ResourceDescriptor>;
  listPrompts(): Promise<Prompt[]>;
  prompts(): AsyncGenerator<Prompt>;
  /** A missing resource rejects with ResourceNotFound. */
  readResource(uri: string): Promise<ResourceContents[]>;
  /** True when the server declared MCP Apps (`io.modelcontextprotocol/ui`). */
  offersApps(): boolean;
  /** The app at `uri`: its HTML and `_meta.ui`; rejects when it is not `text/html;profile=mcp-app`. */
  readApp(uri: string): Promise<AppView>;
  /** The server's Skills extension settings, or null when it did not declare the extension. */
  skillsSupport(): { directoryRead: boolean } | null;
  /** Every skill entry the server lists; reads no file. */
  listSkills(): Promise<Skill[]>;
  /** The entry of the skill whose SKILL.md is at `uri` (unknown: rejects with code -32602). */
  getSkill(uri: string): Promise<Skill>;
  /** The skill's SKILL.md text once its size, digest and frontmatter match `entry`. */
  loadSkill(entry: Skill): Promise<string>;
  /** A listed file's bytes once its size and digest match `entry`. */
  readSkillFile(entry: Skill, uri: string): Promise<Buffer>;
  /** The direct children of a directory resource (needs `directoryRead`). */
  readDirectory(uri: string): Promise<ResourceDescriptor[]>;
  /** Updates of `uri` reach `onResourceUpdated` (legacy `resources/subscribe`; a listen filter
   * on 2026-07-28, resolved once acknowledged). An unknown or hidden resource rejects with
   * ResourceNotFound. */
  subscribe(uri: string): Promise<void>;
  unsubscribe(uri: string): Promise<void>;
  getPrompt(name: string, args?: { [argument: string]: string }): Promise<GetPromptResult>;
  complete(ref: { prompt: string } | { resource: string }, argument: string, value: string, context?: { [argument: string]: string }): Promise<string[]>;
  callTool(name: string, args?: { [key: string]: unknown }, options?: CallOptions & { task?: false }): Promise<CallToolResult>;
  callTool(name: string, args: { [key: string]: unknown } | undefined, options: CallOptions & { task: true; ttlMs?: number }): Promise<Task>;
  request(method: string, params?: { [key: string]: unknown }): Promise<any>;
  /** The server's Events extension settings, or null when it declared none (SEP-3415). */
  eventsSupport(): { listChanged: boolean } | null;
  /** Every event type the server lists. */
  listEvents(): Promise<import('./events').EventType[]>;
  /** One `events/poll` (`cursor` null: from now). */
  pollEvents(name: string, options?: { arguments?: { [key: string]: unknown }; cursor?: string | null; maxEvents?: number }): Promise<import('./events').PollResult>;
  /** Polls on and on at the server's pace (at least a second apart; at once after `hasMore`). */
  poller(name: string, options?: { arguments?: { [key: string]: unknown }; cursor?: string | null }): AsyncGenerator<import('./events').PollResult, never, void>;
  /** Opens an `events/stream`; resolves once it is active (its first item). */
  streamEvents(name: string, options?: { arguments?: { [key: string]: unknown }; cursor?: string | null }): Promise<import('./events').EventStream>;
  /** Creates or refreshes a webhook subscription (`secret`: `whsec_` + base64 of 24–64 bytes). */
  subscribeWebhook(name: string, url: string, secret: string, options?: { arguments?: { [key: string]: unknown }; ttlMs?: number }): Promise<import('./events').WebhookGrant>;
  /** Ends a webhook subscription, by its key. */
  unsubscribeWebhook(name: string, url: string, options?: { arguments?: { [key: string]: unknown } }): Promise<void>;
  ping(): Promise<void>;
  setLogLevel(level: LogLevel): Promise<void>;
  /** Replaces the roots given as a list at connect and tells the server. */
  setRoots(roots: RootSpec[]): void;
  /** Tells the server that what a `roots` function answers changed. */
  rootsChanged(): void;
  /** Receives every log message the server sends; the last handler set wins. */
  onLog(handler: (m: LogMessage) => void): void;
  onToolsChanged(handler: () => void): void;
  onPromptsChanged(handler: () => void): void;
  onResourcesChanged(handler: () => void): void;
  onResourceUpdated(handler: (uri: string) => void): void;
  /** Every other notification; replaces the handlers above. On 2026-07-28 the client keeps a
   * `subscriptions/listen` stream open for the handlers (closed with the client). */
  onNotification(handler: (method: string, params: { [key: string]: unknown }) => void): void;
  /** 2026-07-28: the filter the server acknowledged for the client's listen stream, once it
   * did; `null` when none is needed, and on legacy sessions. */
  notificationsReady(): Promise<SubscriptionFilter | null>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A value, or a Promise of it (not exported). */
type MaybePromise<T> = T | Promise<T>;

export {};
