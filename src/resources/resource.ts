import type { BearerSource, Transport } from '../core/transport.js';
import type { Scope } from '../auth/scopes.js';

/** What a resource needs from its client: the transport and a token source per scope. */
export interface ResourceContext {
  transport: Transport;
  bearer(scopes: readonly Scope[]): BearerSource;
}
