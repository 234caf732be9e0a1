import { describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp.js';
import { validCard } from '../support/cards.js';
import { type Agent, APP, bank, LINES, textOf, TRANSFER } from './support.js';

// DESIGN "Agents", row "results": card secrets masked; errors as tool results with the SDK error's
// class, message and, for ApiError, status and idempotency key; no client secret or token anywhere.
const PAN = '5399831234567890';
const CARD_SECRETS = { card_number: PAN, card_cvv2: '987', card_default_pin: '48261', card_token: 'tok_CARD_SENTINEL_3c9d' };

/** The sandbox behind a provider that sends whole card numbers and every secret field in clear. */
function cardBank() {
  const b = bank();
  const fetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const response = await b.sandbox(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!url.pathname.endsWith('/cards') || response.status >= 300) return response;
    const body = (await response.json()) as { data: Record<string, unknown> & { cards?: Record<string, unknown>[] } };
    if (Array.isArray(body.data.cards)) body.data.cards = body.data.cards.map((card) => ({ ...card, ...CARD_SECRETS }));
    else Object.assign(body.data, CARD_SECRETS);
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  };
  const ob = b.client({ fetch: fetch as typeof globalThis.fetch });
  return { ...b, ob, session: ob.forCustomer(b.tokens, { id: 'customer-42' }) };
}

const everything = (results: { content: { text?: string }[]; structuredContent?: unknown }[]) => results.map((r) => `${textOf(r as never)}\n${JSON.stringify(r.structuredContent ?? null)}`).join('\n');

describe.each(LINES)('results for the %s', (_line, connect) => {
  it('card secrets are masked: the number keeps its last four characters, the rest read [redacted]', async () => {
    const { ob, session } = cardBank();
    const agent = await connect(ob, { customer: session, allow: ['cards.create'] });
    const created = await agent.call('cards_create', validCard({ card_default_pin: '48261' }));
    const listed = await agent.call('cards_list');
    expect(created.structuredContent).toMatchObject({ card_number: '7890', card_cvv2: '[redacted]', card_default_pin: '[redacted]', card_token: '[redacted]' });
    expect(listed.structuredContent).toMatchObject({ cards: [{ card_number: '7890', card_cvv2: '[redacted]', card_default_pin: '[redacted]', card_token: '[redacted]' }] });
    const shown = everything([created, listed]);
    for (const secret of [PAN, '987', '48261', CARD_SECRETS.card_token]) expect(shown).not.toContain(secret);
    await agent.close();
  });

  it("an ApiError: class, message, status and the call's idempotency key, as the sandbox saw it", async () => {
    const { sandbox, ob, session } = bank();
    const agent = await connect(ob, { customer: session, allow: ['transfers.create'], limits: { perCall: 50_000, perDay: 200_000 }, ledger: 'memory' });
    const missing = await agent.call('accounts_balances_retrieve', { account_number: '0000000000' });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toBeUndefined();
    const read = sandbox.requests.list({ path: '/openapi/v1/accounts/0000000000/balances' });
    expect(textOf(missing)).toMatch(/^NotFoundError: Account 0000000000 was not found/);
    expect(JSON.parse(textOf(missing).split('\n')[1]!).error).toMatchObject({ name: 'NotFoundError', status: 404, idempotency_key: read[0]!.idempotencyKey });
    const refused = await agent.call('transfers_create', { ...TRANSFER, source_account_number: '1111111111' });
    const sent = sandbox.requests.list({ path: '/openapi/v1/transactions/transfer' });
    expect(textOf(refused)).toMatch(/^BadRequestError: /);
    expect(JSON.parse(textOf(refused).split('\n')[1]!).error).toMatchObject({ name: 'BadRequestError', status: 400, error_code: 'INVALID_FIELD', idempotency_key: sent[0]!.idempotencyKey });
    await agent.close();
  });
});

describe('no client secret or token in any result or error', () => {
  it('through reads, writes, refusals, an ended consent and connect_bank', async () => {
    const { sandbox, ob, session, tokens, client } = bank();
    const results = [];
    const agents: Agent[] = [];
    for (const [, connect] of LINES) {
      const agent = await connect(ob, { customer: session, allow: ['writes', 'cards.create', 'transfers.create'], limits: { perCall: 50_000, perDay: 60_000 }, ledger: 'memory' });
      agents.push(agent);
      results.push(await agent.call('customers_retrieve'), await agent.call('transfers_create', TRANSFER), await agent.call('transfers_create', { ...TRANSFER, amount: 60_000 }));
      results.push(await agent.call('cards_create', validCard()), await agent.call('accounts_list', { extra: tokens.access_token }));
    }
    // The customer revokes the consent: the next refresh is refused and the session ends.
    sandbox.revokeConsent(tokens.refresh_token!);
    const ended = await agents[0]!.call('accounts_list');
    results.push(ended, await agents[0]!.call('accounts_list'));
    expect(textOf(ended)).toMatch(/^(AuthenticationError|ConsentEndedError): /);
    // The device-code poll waits between polls (briefly): a wait that never yields would hold the event loop.
    const connecting = createMcpServer(client({ sleep: () => new Promise((resolve) => setTimeout(resolve, 5)) }), {});
    const { v2 } = await import('./support.js');
    const connectAgent = await v2(connecting);
    results.push(await connectAgent.call('connect_bank'), await connectAgent.call('accounts_list'));
    const shown = everything(results);
    for (const secret of [APP.clientSecret, tokens.access_token, tokens.refresh_token!, session.tokens.access_token]) expect(shown).not.toContain(secret);
    expect(shown).not.toMatch(/device_code/);
    await Promise.all([...agents, connectAgent].map((a) => a.close()));
  });
});

describe.each(LINES)('results masked by the SDK rule, for the %s', (_line, connect) => {
  const SPELLINGS = { cardNumber: PAN, pan: PAN, cvv: '731', cvv2: '846', card_pin: '48261', track2: `${PAN}=29092010000000000`, customer_bvn: '22212345678', nin: '12345678901' };

  it('every secret name, however spelled, in structuredContent and text alike; BVN and NIN keep their last four digits', async () => {
    const b = bank();
    const fetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
      const response = await b.sandbox(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (!url.pathname.endsWith('/cards') || response.status >= 300) return response;
      const body = (await response.json()) as { data: { cards: Record<string, unknown>[] } };
      body.data.cards = [{ card_id: 'CARD-1', card_status: 'ACTIVE', ...SPELLINGS }];
      return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
    };
    const ob = b.client({ fetch: fetch as typeof globalThis.fetch });
    const agent = await connect(ob, { customer: ob.forCustomer(b.tokens, { id: 'customer-42' }) });
    const cards = await agent.call('cards_list');
    expect(cards.isError, textOf(cards)).toBeFalsy();
    const card = (cards.structuredContent as { cards: Record<string, unknown>[] }).cards[0]!;
    expect(card).toMatchObject({ card_id: 'CARD-1', cardNumber: '7890', pan: '7890', cvv: '[redacted]', cvv2: '[redacted]', card_pin: '[redacted]', track2: '[redacted]', customer_bvn: '5678', nin: '8901' });
    // The text summarises the same masked values (DESIGN "written for a model").
    expect(textOf(cards)).toContain('cards: 1 item (card_id | card_status | cardNumber | pan | customer_bvn | nin):\n- "CARD-1" | "ACTIVE" | "7890" | "7890" | "5678" | "8901"');
    const customer = await agent.call('customers_retrieve');
    const accounts = await agent.call('accounts_list');
    expect(customer.structuredContent).toMatchObject({ bvn: '5678' });
    expect((accounts.structuredContent as { accounts: { bvn?: string }[] }).accounts.every((a) => a.bvn === undefined || a.bvn === null || a.bvn === '5678')).toBe(true);
    const shown = everything([cards, customer, accounts]);
    for (const secret of [PAN, '731', '846', '48261', '22212345678', '12345678901']) expect(shown).not.toContain(secret);
    await agent.close();
  });
});
