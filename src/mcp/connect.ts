import type { CustomerSession, CustomerSessionOptions, DeviceAuthorization, OpenBanking, Scope, TokenSet } from '../index.js';
import type { JsonSchema } from '../schemas.js';
import { ToolRefusal } from './results.js';

/** What `connect_bank` answers: where the person approves, never the device code. */
export interface ConnectAnswer {
  status: 'pending' | 'connected';
  message: string;
  verification_uri?: string;
  verification_uri_complete?: string;
  user_code?: string;
  expires_in?: number;
}

/** The `outputSchema` of `connect_bank`. */
export const CONNECT_OUTPUT: JsonSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['pending', 'connected'] },
    message: { type: 'string' },
    verification_uri: { type: 'string' },
    verification_uri_complete: { type: 'string' },
    user_code: { type: 'string' },
    expires_in: { type: 'number' },
  },
  required: ['status', 'message'],
  additionalProperties: false,
};

/**
 * The customer the tools act for: the session given, or the one the device-code flow of
 * `connect_bank` makes once the person approves (polled in the background).
 */
export class CustomerLink {
  readonly #ob: OpenBanking;
  readonly #options: CustomerSessionOptions | undefined;
  readonly #stop = new AbortController();
  #session: CustomerSession | undefined;
  #pending: { flow: DeviceAuthorization; started: Promise<void> } | undefined;
  #failure: Error | undefined;

  constructor(ob: OpenBanking, session: CustomerSession | undefined, options: CustomerSessionOptions | undefined) {
    this.#ob = ob;
    this.#session = session;
    this.#options = options;
  }

  /** The session, when there is one (given, or connected). */
  get session(): CustomerSession | undefined {
    return this.#session;
  }

  /** The session for a customer tool; a tool error saying where to approve while there is none. */
  require(): CustomerSession {
    if (this.#session !== undefined) return this.#session;
    const pending = this.#pending?.flow;
    if (pending) throw new ToolRefusal('NotConnected', `The customer has not approved yet: ask them to open ${pending.verification_uri_complete ?? pending.verification_uri} and enter the code ${pending.user_code}, then call this tool again.`);
    const failed = this.#failure ? ` The last attempt ended: ${this.#failure.message}.` : '';
    throw new ToolRefusal('NotConnected', `No customer is connected.${failed} Call connect_bank and ask the person to approve at the address it gives.`);
  }

  /** Starts the device-code flow for `scopes` (or reports the one under way, or the connection). */
  async connect(scopes: readonly Scope[]): Promise<ConnectAnswer> {
    if (this.#session !== undefined && this.#session.consent.state === 'active') return { status: 'connected', message: 'A customer is connected: the customer tools act for them.' };
    if (this.#pending === undefined) {
      const flow = await this.#ob.auth.deviceCode([...scopes]);
      this.#failure = undefined;
      const started = this.#ob.auth.pollDeviceToken(flow, { signal: this.#stop.signal }).then(
        (tokens) => this.#connected(tokens),
        (error: unknown) => {
          this.#failure = error instanceof Error ? error : new Error(String(error));
        },
      );
      this.#pending = { flow, started: started.finally(() => (this.#pending = undefined)) };
    }
    const { flow } = this.#pending;
    const where = flow.verification_uri_complete ?? flow.verification_uri;
    const consent = typeof flow.obn_custom_metadata?.consent_message === 'string' ? ` The bank says: ${flow.obn_custom_metadata.consent_message}` : '';
    return {
      status: 'pending',
      message: `Ask the person to open ${where} and enter the code ${flow.user_code} to approve access. The customer tools work once they have.${consent}`,
      verification_uri: flow.verification_uri,
      ...(flow.verification_uri_complete ? { verification_uri_complete: flow.verification_uri_complete } : {}),
      user_code: flow.user_code,
      expires_in: flow.expires_in,
    };
  }

  /** Resolves once the flow under way has ended, approved or not (for tests and shutdown). */
  async settled(): Promise<void> {
    await this.#pending?.started;
  }

  /** Stops polling. */
  close(): void {
    this.#stop.abort();
  }

  #connected(tokens: TokenSet): void {
    if (this.#session !== undefined) this.#session.setTokens(tokens);
    else this.#session = this.#ob.forCustomer(tokens, this.#options);
    // The first set goes to `onTokens` as a refreshed one would; its failure must not end the process.
    const onTokens = this.#options?.onTokens;
    if (onTokens) void Promise.resolve().then(() => onTokens(tokens)).catch(() => undefined);
  }
}
