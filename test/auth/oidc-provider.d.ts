// The part of oidc-provider's API the integration test uses (the package ships no types, and
// @types/oidc-provider is not a dependency of this project).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Interaction {
    uid: string;
    prompt: { name: string };
    params: Record<string, unknown>;
  }
  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }
  class Grant {
    constructor(init: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  interface AccessToken {
    accountId: string;
    scope?: string;
    isExpired: boolean;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown> & {
      findAccount?: (ctx: unknown, sub: string) => Promise<Account | undefined>;
      interactions?: { url: (ctx: unknown, interaction: Interaction) => string };
    });
    Grant: typeof Grant;
    AccessToken: { find(token: string): Promise<AccessToken | undefined> };
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
  }
}
