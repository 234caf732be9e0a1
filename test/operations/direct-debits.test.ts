import { describe, expect, it } from 'vitest';
import type { CreateMandateParams, MandateList, MandateResult } from '../../src/index.js';
import { useMsw } from '../support/msw.js';
import { answerWith, describeOperations, useSandbox } from './harness.js';

const MANDATE = 'MAN000000001';
const mandate = (extra: Partial<CreateMandateParams> = {}): CreateMandateParams => ({
  reference: 'SUB-ADA-001',
  narration: 'Streaming subscription',
  amount: 4_400,
  start_date: '2024-02-01',
  frequency: 'MONTHLY',
  destination_bank_code: '000013',
  destination_account: '0555666777',
  destination_account_name: 'Stream Ltd',
  callback_url: 'https://merchant.example/webhooks/dd',
  ...extra,
});

describeOperations('directDebits', [
  {
    name: 'directDebits.create',
    token: 'customer',
    call: (t) => t.directDebits.create(mandate()),
    check: (data) => expect(data as MandateResult).toMatchObject({ mandate_status: 'ACTIVE', mandate_id: expect.stringMatching(/^MAN/), next_possible_charge_date: '2024-02-01' }),
    bad: (t) => t.directDebits.create(mandate({ frequency: 'FORTNIGHTLY' as never })),
    badPath: 'frequency',
    wire: (t) => t.directDebits.create(mandate()),
    method: 'POST',
    path: '/direct-debits',
    data: { mandate_id: 'M' },
  },
  {
    name: 'directDebits.list',
    token: 'customer',
    call: (t) => t.directDebits.list(),
    check: (data) => expect((data as MandateList).mandates[0]).toMatchObject({ mandate_id: MANDATE, mandate_status: 'ACTIVE', frequency: 'MONTHLY' }),
    bad: (t) => t.directDebits.list({ status: 'ACTIVE' } as never, {}),
    badPath: '',
    wire: (t) => t.directDebits.list(),
    method: 'GET',
    path: '/direct-debits',
    data: { mandates: [] },
  },
  {
    name: 'directDebits.update',
    token: 'customer',
    call: (t) => t.directDebits.update(MANDATE, { reference: 'GYM-MEMBERSHIP-ADA', narration: 'Gym membership', amount: 15_000, end_date: '2027-12-31' }),
    check: (data) => expect(data as MandateResult).toMatchObject({ mandate_id: MANDATE, mandate_status: 'ACTIVE' }),
    bad: (t) => t.directDebits.update(MANDATE, { reference: 'R', amount: 1 } as never),
    badPath: 'narration',
    wire: (t) => t.directDebits.update('MAN 1/2', { reference: 'R', narration: 'N', amount: 1 }),
    method: 'PATCH',
    path: '/direct-debits/MAN%201%2F2',
    data: { mandate_id: 'M' },
  },
  {
    name: 'directDebits.charge',
    token: 'customer',
    call: (t) => t.directDebits.charge(MANDATE, { amount: 15_000, reference: 'GYM-2024-02' }),
    check: (data) => expect(data as MandateResult).toMatchObject({ mandate_id: MANDATE }),
    bad: (t) => t.directDebits.charge(MANDATE, { amount: '15000' as never }),
    badPath: 'amount',
    wire: (t) => t.directDebits.charge(12345, { amount: 1 }),
    method: 'POST',
    path: '/direct-debits/12345',
    data: { mandate_id: 12345 },
  },
]);

describe('direct debits over the sandbox', () => {
  const env = useSandbox();

  it('a new mandate shows in the list, can be charged once per key, and refuses debits once INACTIVE', async () => {
    const session = env.session();
    const { mandate_id } = await session.directDebits.create(mandate({ reference: 'SUB-ADA-002' }));
    expect((await session.directDebits.list()).mandates.map((m) => m.mandate_id)).toContain(mandate_id);
    const before = env.server.payments().length;
    await session.directDebits.charge(mandate_id!, { amount: 4_400 }, { idempotencyKey: 'debit-2024-02' });
    await session.directDebits.charge(mandate_id!, { amount: 4_400 }, { idempotencyKey: 'debit-2024-02' });
    expect(env.server.payments().slice(before).map((p) => [p.kind, p.reference, p.idempotencyKey])).toEqual([['debit', mandate_id, 'debit-2024-02']]);
    await session.directDebits.update(mandate_id!, { reference: 'SUB-ADA-002', narration: 'Streaming subscription', amount: 4_400, mandate_status: 'INACTIVE' });
    await expect(session.directDebits.charge(mandate_id!, { amount: 4_400 })).rejects.toMatchObject({ status: 400, errorCode: 'MANDATE_INACTIVE' });
  });

  it('the sandbox answers MISSING_FIELD for each required field of a mandate sent by hand', async () => {
    const session = env.session();
    for (const field of ['reference', 'narration', 'amount']) {
      const body: Record<string, unknown> = { reference: 'R', narration: 'N', amount: 1 };
      delete body[field];
      await expect(session.request({ method: 'POST', path: '/direct-debits', body })).rejects.toMatchObject({ status: 400, errorCode: 'MISSING_FIELD', errors: [expect.objectContaining({ field })] });
    }
  });
});

describe('direct debits: tolerance of what the provider sends', () => {
  const server = useMsw();

  it('a numeric mandate_id and an unknown status and frequency are kept', async () => {
    const { session } = answerWith(server, { mandates: [{ mandate_id: 42, mandate_status: 'SUSPENDED', frequency: 'BIWEEKLY' }] });
    expect((await session.directDebits.list()).mandates[0]).toEqual({ mandate_id: 42, mandate_status: 'SUSPENDED', frequency: 'BIWEEKLY' });
  });
});

describe('direct debits: an update takes the fields of §11.3 only', () => {
  const server = useMsw();

  it('custom_properties, which the update page does not show, is refused before sending', async () => {
    let sent = 0;
    const count = ({ request }: { request: Request }) => {
      if (request.url.includes('/direct-debits')) sent++;
    };
    server.events.on('request:start', count);
    const { session } = answerWith(server, { mandate_id: MANDATE });
    const body = { reference: 'R', narration: 'N', amount: 1, custom_properties: [{ id: 'x', description: '', type: 't', value: '' }] };
    await expect(session.directDebits.update(MANDATE, body as never)).rejects.toMatchObject({ name: 'ValidationError', issues: [{ path: 'custom_properties', code: 'unrecognized_keys' }] });
    await expect(session.directDebits.charge(MANDATE, { amount: 1, custom_properties: body.custom_properties })).resolves.toMatchObject({ mandate_id: MANDATE });
    server.events.removeListener('request:start', count);
    expect(sent).toBe(1);
  });
});
