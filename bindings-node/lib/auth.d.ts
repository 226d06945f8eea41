// OAuth 2.1 for the client (lib/auth.js): `OAuth` and the token stores.

/** What a token store keeps: tokens per MCP server URL, registrations per issuer (secrets). */
export interface StoredTokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  expires_at?: number;
  /** When it was issued (seconds since the Unix epoch): with `expires_at`, how early it is refreshed. */
  issued_at?: number;
  scope?: string;
  issuer: string;
  resource?: string;
  dpop_key?: string;
}
export interface StoredClient {
  issuer: string;
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method?: string;
  redirect_uris: string[];
  client_secret_expires_at?: number;
}
type MaybePromise<T> = T | Promise<T>;
/** Where an OAuth client keeps what must survive a restart. */
export interface TokenStore {
  loadTokens(server: string): MaybePromise<StoredTokens | null | undefined>;
  saveTokens(server: string, tokens: StoredTokens | null): MaybePromise<void>;
  loadClient(issuer: string): MaybePromise<StoredClient | null | undefined>;
  saveClient(issuer: string, client: StoredClient | null): MaybePromise<void>;
}
export interface OAuthOptions {
  /** The user step: take the user to `url`, resolve to the URL the server redirected back to
   * (needs `redirectUri`). Without it, a 127.0.0.1 loopback listener opens the browser. */
  onAuthorize?: (url: string) => MaybePromise<string>;
  redirectUri?: string;
  /** `authorization_code` (default), `client_credentials` (needs `clientId`), `jwt_bearer`
   * (workload identity: `assertion`). */
  grant?: 'authorization_code' | 'client_credentials' | 'jwt_bearer';
  /** Pre-registered credentials, used first. */
  clientId?: string;
  clientSecret?: string;
  /** `private_key_jwt` client authentication (PKCS#8 PEM). */
  privateKeyPem?: string;
  signingAlgorithm?: string;
  /** The issuer the pre-registered credentials belong to (others are refused). */
  issuer?: string;
  assertion?: string;
  /** Scopes to request instead of the server's (a 403 still adds what it needs). */
  scopes?: string[];
  /** This client's Client ID Metadata Document (an https URL). */
  clientMetadataUrl?: string;
  clientName?: string;
  offlineAccess?: boolean;
  /** Use DPoP-bound tokens when the resource's metadata and its authorization server both say
   * they take them (default true; false: bearer tokens only). */
  dpop?: boolean;
  maxAuthorizations?: number;
  store?: TokenStore;
  /** A JSON file store (mode 0600) instead of `store`. */
  storePath?: string;
}
export class OAuth {
  constructor(options?: OAuthOptions);
  tokens(url: string): Promise<StoredTokens | undefined>;
  forget(url: string): Promise<void>;
}
export class MemoryTokenStore implements TokenStore {
  readonly tokens: Map<string, StoredTokens>;
  readonly clients: Map<string, StoredClient>;
  loadTokens(server: string): StoredTokens | null;
  saveTokens(server: string, tokens: StoredTokens | null): void;
  loadClient(issuer: string): StoredClient | null;
  saveClient(issuer: string, client: StoredClient | null): void;
}

export {};
