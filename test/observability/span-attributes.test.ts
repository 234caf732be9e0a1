import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/index.js';
import { instrument } from '../../src/otel.js';
import { type SandboxClient, type SandboxServer, startSandboxServer } from '../../src/testing.js';
import { clientFor, validCard } from '../sandbox/support.js';
import { telemetry, useAsyncContext } from './support.js';

// The `spanAttributes` call option: what in the app made a call, on that call's span only.
describe('spanAttributes: attributes of one call span', () => {
  let server: SandboxServer;
  let app: SandboxClient;
  let t: ReturnType<typeof telemetry>;
  beforeAll(async () => {
    useAsyncContext();
    server = await startSandboxServer({ seed: 'span-attributes' });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    app = server.registerClient();
    t = telemetry();
  });
  afterEach(() => t.shutdown());

  it('the call span carries them, its attempt spans and metrics do not, and they never replace the SDK attributes', async () => {
    const { ob } = clientFor(server, app);
    instrument(ob, { tracerProvider: t.tracerProvider, meterProvider: t.meterProvider });
    await ob.cards.create(validCard(), { spanAttributes: { 'openbanking.mcp.tool': 'cards_create', 'openbanking.operation': 'spoofed' } });
    const call = t.one('cards.create');
    expect(call.attributes['openbanking.mcp.tool']).toBe('cards_create');
    expect(call.attributes['openbanking.operation']).toBe('cards.create');
    for (const child of t.childrenOf(call)) expect(child.attributes['openbanking.mcp.tool']).toBeUndefined();
    const points = await t.points('openbanking.client.call.duration');
    expect(points.map((p) => p.attributes['openbanking.mcp.tool'])).toEqual([undefined]);
  });

  it('bad attributes reject with ValidationError and send nothing', async () => {
    const { ob } = clientFor(server, app);
    for (const spanAttributes of [{ 'a.b': 1 }, { 'a.b': 'x', 'c.d': null }, 'tool', null]) {
      const error = await ob.cards.create(validCard(), { spanAttributes: spanAttributes as never }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0]!.path).toBe('spanAttributes');
    }
    expect(server.requests.count({ path: '/openapi/v1/cards' })).toBe(0);
  });

  it('without an instrumentation the option changes nothing', async () => {
    const { ob } = clientFor(server, app);
    await expect(ob.cards.create(validCard(), { spanAttributes: { 'openbanking.mcp.tool': 'cards_create' } })).resolves.toMatchObject({ card_id: expect.any(String) });
  });
});
