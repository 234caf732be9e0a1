import { describe, expect, it } from 'vitest';
import { type CreateTransferParams, type NameEnquiry, NotFoundError, OpenBanking, type Transfer } from '../../src/index.js';
import { useMsw } from '../support/msw.js';
import { answerWith, describeOperations, useSandbox } from './harness.js';

const transfer = (extra: Partial<CreateTransferParams> = {}): CreateTransferParams => ({
  amount: 5_000,
  source_account_number: '0123456789',
  destination_bank_code: '000007',
  destination_account_number: '01234567890',
  narration: 'Rent',
  ...extra,
});

describeOperations('transfers', [
  {
    name: 'transfers.enquiry',
    token: 'both',
    call: (t) => t.transfers.enquiry({ destination_bank_code: '000007', destination_account_number: '01234567890' }),
    check: (data) => expect((data as NameEnquiry).name_on_account).toBe('Chidi Okafor'),
    bad: (t) => t.transfers.enquiry({ destination_bank_code: '000007' } as never),
    badPath: 'destination_account_number',
    wire: (t) => t.transfers.enquiry({ destination_bank_code: '000007', destination_account_number: '0123456789' }),
    method: 'POST',
    path: '/transactions/enquiry',
    data: { name_on_account: 'Ada Obi' },
  },
  {
    name: 'transfers.create',
    token: 'customer',
    call: (t) => t.transfers.create(transfer()),
    check: (data) => expect((data as Transfer).batch_reference).toMatch(/^BATCH\d+$/),
    bad: (t) => t.transfers.create(transfer({ amount: -1 })),
    badPath: 'amount',
    wire: (t) => t.transfers.create(transfer()),
    method: 'POST',
    path: '/transactions/transfer',
    data: { batch_reference: 'B1' },
  },
  {
    name: 'transfers.retrieve',
    token: 'customer',
    call: (t) => t.transfers.retrieve('BATCH000000000'),
    check: (data) => expect(data).toMatchObject({ reference: 'SEED-TRANSFER', status: expect.stringMatching(/^(PENDING|SUCCESSFUL)$/) }),
    bad: (t) => t.transfers.retrieve(''),
    badPath: 'batch_reference',
    wire: (t) => t.transfers.retrieve('B 1/2'),
    method: 'GET',
    path: '/transactions/B%201%2F2',
    data: { reference: 'R', status: 'SUCCESSFUL' },
  },
]);

describe('transfers: money moves once, and its status moves on', () => {
  const env = useSandbox();

  it('a transfer is PENDING on its first read and SUCCESSFUL after', async () => {
    const session = env.session();
    const { batch_reference } = await session.transfers.create(transfer({ reference: 'RENT-2024-01' }));
    const first = await session.transfers.retrieve(batch_reference!);
    const second = await session.transfers.retrieve(batch_reference!);
    expect([first.status, second.status]).toEqual(['PENDING', 'SUCCESSFUL']);
    expect(second.reference).toBe('RENT-2024-01');
  });

  it('a retry after a crash with the same idempotencyKey replays the first answer: one transfer in the ledger', async () => {
    const session = env.session();
    const key = 'transfer-order-42';
    const before = env.server.payments().length;
    const a = await session.transfers.create(transfer(), { idempotencyKey: key });
    const b = await session.transfers.create(transfer(), { idempotencyKey: key });
    expect(b.batch_reference).toBe(a.batch_reference);
    expect(env.server.payments().slice(before)).toEqual([expect.objectContaining({ kind: 'transfer', idempotencyKey: key, amount: 5_000 })]);
  });

  it('endpoints.transfer overrides the unofficial path', async () => {
    const moved = new OpenBanking({ clientId: 'ops-app', clientSecret: 'ops-secret-ÆØ-1', baseUrl: env.server.baseUrl, authUrl: env.server.authUrl, logLevel: 'off', endpoints: { transfer: '/transactions' } });
    const session = env.session(undefined, moved);
    const before = env.server.requests.count({ path: '/openapi/v1/transactions', method: 'POST' });
    await expect(session.transfers.create(transfer())).rejects.toBeInstanceOf(NotFoundError);
    expect(env.server.requests.count({ path: '/openapi/v1/transactions', method: 'POST' })).toBe(before + 1);
  });
});

describe('transfers: tolerance of what the provider sends', () => {
  const server = useMsw();

  it('a numeric batch_reference and unknown members are kept as sent', async () => {
    const { session } = answerWith(server, { batch_reference: 98765, status: 'PENDING', extra: { a: 1 } });
    const data = await session.transfers.create(transfer());
    expect(data).toEqual({ batch_reference: 98765, status: 'PENDING', extra: { a: 1 } });
  });

  it('a transfer status the SDK does not know is passed through (open enum)', async () => {
    const { session } = answerWith(server, { reference: 'R', status: 'REVERSED', status_message: null });
    expect((await session.transfers.retrieve('B1')).status).toBe('REVERSED');
  });

  it('extra fields of the unofficial transfer body pass through to the wire', async () => {
    const { session } = answerWith(server, {});
    const body = await session.transfers.create({ ...transfer(), beneficiary_email: 'x@example.com' } as CreateTransferParams).withResponse();
    expect(body.data).toEqual({});
  });
});
