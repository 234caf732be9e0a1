import { AsyncLocalStorage } from 'node:async_hooks';
import dc from 'node:diagnostics_channel';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/index.js';
import { type SandboxClient, type SandboxServer, startSandboxServer } from '../../src/testing.js';
import { clientFor, validCard } from '../sandbox/support.js';

const CARDS = '/openapi/v1/cards';

describe('the TracingChannel openbanking-ng:call', () => {
  let server: SandboxServer;
  let app: SandboxClient;
  beforeAll(async () => {
    server = await startSandboxServer({ seed: 'channel' });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    app = server.registerClient();
  });

  /** Subscribes to every event of the channel; returns what it saw and the unsubscribe. */
  function subscribe() {
    const channel = dc.tracingChannel('openbanking-ng:call');
    const seen: [string, Record<string, unknown>][] = [];
    const copy = (name: string) => (message: unknown) => void seen.push([name, { ...(message as Record<string, unknown>) }]);
    const handlers = { start: copy('start'), end: copy('end'), asyncStart: copy('asyncStart'), asyncEnd: copy('asyncEnd'), error: copy('error') };
    channel.subscribe(handlers);
    return { seen, off: () => channel.unsubscribe(handlers) };
  }

  it('a call: start with the callStart payload, end, then asyncStart and asyncEnd with result { status }', async () => {
    const { seen, off } = subscribe();
    try {
      const { ob } = clientFor(server, app, { connectionId: 'bank-3' });
      const { idempotencyKey } = await ob.cards.create(validCard()).withResponse();
      expect(seen.map(([name]) => name)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
      const start = { operation: 'cards.create', method: 'POST', urlTemplate: '/cards', idempotencyKey, connectionId: 'bank-3' };
      expect(seen[0]![1]).toEqual(start);
      expect(seen[3]![1]).toEqual({ ...start, result: { status: 201 } });
    } finally {
      off();
    }
  });

  it('a rejected call: error with the error in the context, then asyncStart and asyncEnd; no result', async () => {
    server.faults.inject({ path: CARDS, times: 1, fault: { type: 'status', status: 404 } });
    const { seen, off } = subscribe();
    try {
      const { ob } = clientFor(server, app);
      const error = await ob.cards.create(validCard()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect(seen.map(([name]) => name)).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
      expect(seen[2]![1]).toMatchObject({ operation: 'cards.create', error });
      expect(seen[4]![1]).not.toHaveProperty('result');
    } finally {
      off();
    }
  });

  it('a store bound to start is the active store for the whole call (how an APM agent keeps its context)', async () => {
    const als = new AsyncLocalStorage<string>();
    const channel = dc.tracingChannel('openbanking-ng:call');
    channel.start.bindStore(als, (context) => `call ${(context as { operation: string }).operation}`);
    try {
      const stores: (string | undefined)[] = [];
      const { ob } = clientFor(server, app, { fetch: (input: RequestInfo | URL, init?: RequestInit) => (stores.push(als.getStore()), fetch(input, init)) });
      await ob.cards.create(validCard());
      expect(stores).toEqual(['call cards.create', 'call cards.create']); // the token request, then the card
    } finally {
      channel.start.unbindStore(als);
    }
  });
});
