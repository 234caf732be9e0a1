import { describe, expect, it } from 'vitest';
import { type BillerCategory, type BillerList, type BillPayment, type BillValidation, ResponseValidationError } from '../../src/index.js';
import { useMsw } from '../support/msw.js';
import { answerWith, describeOperations, useSandbox } from './harness.js';

const payment = { amount: 12_500, source_account_number: '0123456789', payer_info: { name: 'Ada Obi' } };

describeOperations('bills', [
  {
    name: 'bills.categories.list',
    token: 'client',
    call: (t) => t.bills.categories.list(),
    check: (data) => expect((data as BillerCategory[]).map((c) => c.id)).toEqual([1, 2, 3, 4]),
    bad: (t) => t.bills.categories.list({ page: 2 } as never, {}),
    badPath: '',
    wire: (t) => t.bills.categories.list(),
    method: 'GET',
    path: '/bills/categories',
    data: [],
  },
  {
    name: 'bills.billers.list',
    token: 'client',
    call: (t) => t.bills.billers.list(3),
    check: (data) => expect((data as BillerList).billers.map((b) => [b.id, b.products?.length])).toEqual([['DSTV', 2], ['GOTV', 1]]),
    bad: (t) => t.bills.billers.list({} as never),
    badPath: 'category_id',
    wire: (t) => t.bills.billers.list('TV/cable'),
    method: 'GET',
    path: '/bills/TV%2Fcable/billers',
    data: { billers: [] },
  },
  {
    name: 'bills.validate',
    token: 'both',
    call: (t) => t.bills.validate(3, 'DSTV', '7012345678'),
    check: (data) => expect(data as BillValidation).toMatchObject({ amount: 12_500, fee: 100, reference: '7012345678', product_info: { product_id: 'DSTV-COMPACT' } }),
    bad: (t) => t.bills.validate(3, 'DSTV', ''),
    badPath: 'bill_reference',
    wire: (t) => t.bills.validate(3, 'DS TV', 'ref?1'),
    method: 'GET',
    path: '/bills/3/billers/DS%20TV/reference/ref%3F1',
    data: { amount: 1 },
  },
  {
    name: 'bills.pay',
    token: 'customer',
    call: (t) => t.bills.pay(3, 'DSTV', '7012345678', payment),
    check: (data) => expect(data as BillPayment).toMatchObject({ amount: 12_500, fee: 100 }),
    bad: (t) => t.bills.pay(3, 'DSTV', '7012345678', { amount: 12_500, source_account_number: '0123456789' } as never),
    badPath: 'payer_info',
    wire: (t) => t.bills.pay('3', 'DSTV', 'a b', payment),
    method: 'POST',
    path: '/bills/3/billers/DSTV/reference/a%20b',
    data: { amount: 1, fee: 0 },
  },
]);

describe('bills: validate, then pay once', () => {
  const env = useSandbox();

  it("a validation's payer_info and product_info go into the payment as they are", async () => {
    const session = env.session();
    const bill = await session.bills.validate(3, 'DSTV', '7012345678');
    const paid = await session.bills.pay(3, 'DSTV', '7012345678', { amount: bill.amount!, source_account_number: '0123456789', payer_info: bill.payer_info!, product_info: bill.product_info! });
    expect(paid.amount).toBe(12_500);
  });

  it('a retry with the same idempotencyKey pays once; the sandbox refuses the same key with another amount', async () => {
    const session = env.session();
    const before = env.server.payments().length;
    await session.bills.pay(3, 'DSTV', '7012345678', payment, { idempotencyKey: 'bill-order-7' });
    await session.bills.pay(3, 'DSTV', '7012345678', payment, { idempotencyKey: 'bill-order-7' });
    await expect(session.bills.pay(3, 'DSTV', '7012345678', { ...payment, amount: 1 }, { idempotencyKey: 'bill-order-7' })).rejects.toMatchObject({ status: 400, errorCode: 'IDEMPOTENCY_KEY_REUSED' });
    expect(env.server.payments().slice(before).map((p) => [p.kind, p.idempotencyKey])).toEqual([['bill', 'bill-order-7']]);
  });

  it('a payment without source_account_number gets the spec’s MISSING_FIELD from the sandbox when sent by hand', async () => {
    const session = env.session();
    const error = await session.request({ method: 'POST', path: '/bills/3/billers/DSTV/reference/1', body: { amount: 5, payer_info: {} } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: '01', errorCode: 'MISSING_FIELD', errors: [expect.objectContaining({ field: 'source_account_number' })] });
  });
});

describe('bills: tolerance of what the provider sends', () => {
  const server = useMsw();

  it('categories as a bare array with numeric ids (the guide)', async () => {
    const { ob } = answerWith(server, [{ id: 1, name: 'Airtime', description: null }]);
    expect(await ob.bills.categories.list()).toEqual([{ id: 1, name: 'Airtime', description: null }]);
  });

  it('categories wrapped in an object with one list, whatever its key', async () => {
    const { ob } = answerWith(server, { biller_categories: [{ id: '1', name: 'Airtime' }] });
    expect(await ob.bills.categories.list()).toEqual([{ id: '1', name: 'Airtime' }]);
  });

  it('anything else is a ResponseValidationError with the raw body', async () => {
    const { ob } = answerWith(server, { a: [], b: [] });
    const error = await ob.bills.categories.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).rawBody).toContain('"a":[]');
  });

  it('an id that is neither a string nor a number, or a fixed amount that is neither a number nor a boolean, is a ResponseValidationError', async () => {
    const { ob } = answerWith(server, { billers: [{ category_id: true, id: 77, name: 'DStv', products: [{ id: 9, fixed_amount: 'yes' }] }] });
    const error = (await ob.bills.billers.list(3).catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues).toEqual([
      expect.objectContaining({ path: 'data.billers.0.category_id', message: 'must be a string or a number', code: 'invalid_type' }),
      expect.objectContaining({ path: 'data.billers.0.products.0.fixed_amount', message: 'must be a number or a boolean', code: 'invalid_type' }),
    ]);
  });

  it('numeric biller, product and category ids are kept as numbers', async () => {
    const { ob } = answerWith(server, { billers: [{ category_id: 3, id: 77, name: 'DStv', products: [{ id: 9, fee: 100, fixed_amount: true }] }] });
    expect((await ob.bills.billers.list(3)).billers[0]).toEqual({ category_id: 3, id: 77, name: 'DStv', products: [{ id: 9, fee: 100, fixed_amount: true }] });
  });
});
