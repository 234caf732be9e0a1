import type { Environment } from '../options.js';
import type { SandboxClientInit } from './options.js';
import type { Random } from './random.js';

/**
 * An application registered with the sandbox, with its credentials.
 * @group Sandbox
 */
export interface SandboxClient {
  /** The client id to configure the SDK with. */
  clientId: string;
  /** The client secret to configure the SDK with. */
  clientSecret: string;
  /** The name shown on the consent page. */
  name: string;
  /** Redirect URIs accepted by `GET /oauth/authorize`, matched exactly. */
  redirectUris: string[];
  /** `participant_id` of the registration (the `X-Participant-ID` header). */
  participantId: string;
  /** `connection_id` of the registration (the `connection-id` header). */
  connectionId: string;
}

/** A registration made through `POST /dcr` (or given with a username in the options). */
export interface RegistrationRecord {
  username: string;
  password: string;
  appName: string;
  redirectUrl: string;
  status: 'APPROVED' | 'PENDING_APPROVAL';
  client: SandboxClient | undefined;
}

/** Applications and registrations the sandbox knows. */
export class ClientRegistry {
  readonly #clients = new Map<string, SandboxClient>();
  readonly #registrations = new Map<string, RegistrationRecord>();

  constructor(
    private readonly random: Random,
    private readonly initial: readonly SandboxClientInit[],
  ) {
    this.reset();
  }

  /** Back to the clients given in the options; everything registered later is forgotten. */
  reset(): void {
    this.#clients.clear();
    this.#registrations.clear();
    for (const init of this.initial) this.add(init);
  }

  /** Registers an application at once (a test control, or a pre-registered client). */
  add(init: Partial<SandboxClientInit> = {}): SandboxClient {
    if (init.clientId !== undefined && this.#clients.has(init.clientId)) throw new Error(`The sandbox already has a client ${init.clientId}`);
    if (init.username !== undefined && this.#registrations.has(init.username)) throw new Error('The sandbox already has a registration with that username');
    const client = this.#mint(init.name ?? init.clientId ?? 'Sandbox app', init.redirectUris ?? [], init);
    this.#clients.set(client.clientId, client);
    if (init.username !== undefined && init.password !== undefined) {
      this.#registrations.set(init.username, {
        username: init.username,
        password: init.password,
        appName: client.name,
        redirectUrl: client.redirectUris[0] ?? '',
        status: 'APPROVED',
        client,
      });
    }
    return { ...client, redirectUris: [...client.redirectUris] };
  }

  get(clientId: string | null | undefined): SandboxClient | undefined {
    return clientId ? this.#clients.get(clientId) : undefined;
  }

  registration(username: string): RegistrationRecord | undefined {
    return this.#registrations.get(username);
  }

  /** A new registration: approved at once in the sandbox environment, pending in production. */
  register(input: { username: string; password: string; appName: string; redirectUrl: string }, environment: Environment): RegistrationRecord {
    const record: RegistrationRecord = { ...input, status: 'PENDING_APPROVAL', client: undefined };
    this.#registrations.set(input.username, record);
    if (environment === 'sandbox') this.approve(input.username);
    return record;
  }

  /** Approves a pending registration (production mode), minting its credentials. */
  approve(username: string): SandboxClient {
    const record = this.#registrations.get(username);
    if (!record) throw new Error('No registration with that username');
    if (!record.client) {
      const client = this.#mint(record.appName, [record.redirectUrl], {});
      this.#clients.set(client.clientId, client);
      record.client = client;
      record.status = 'APPROVED';
    }
    return { ...record.client, redirectUris: [...record.client.redirectUris] };
  }

  #mint(name: string, redirectUris: readonly string[], init: Partial<SandboxClientInit>): SandboxClient {
    return {
      clientId: init.clientId ?? this.random.id('sbx_client_', 20),
      clientSecret: init.clientSecret ?? this.random.id('sbx_secret_', 40),
      name,
      redirectUris: [...redirectUris],
      participantId: init.participantId ?? `PART${this.random.digits(10)}`,
      connectionId: init.connectionId ?? `CONN${this.random.digits(10)}`,
    };
  }
}
