import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError, type ClientOptions, TRANSFER_PENDING_STATUSES, TransferPendingError, ValidationError, isTransferPendingError } from '../../src/index.js';
import { createManualClock, startSandboxServer, type ManualClock, type SandboxServer } from '../../src/testing.js';
import { clientFor } from '../sandbox/support.js';
import { BASE, http, HttpResponse, testClient, useMsw } from '../support/msw.js';

// transfers.waitForCompletion on the sandbox's clock: the client's sleep advances it, and the
// sandbox's request log says when (on that clock) each poll arrived.

const APP = { clientId: 'wait-app', clientSecret: 'wait-secret-1' };
const SCOPES = ['transfers.transactions.create', 'transfers.transactions.query'];
const transfer = { amount: 5_000, source_account_number: '0123456789', destination_bank_code: '000007', destination_account_number: '01234567890' };

let clock: ManualClock;
let server: SandboxServer;
beforeAll(async () => {
  clock = createManualClock();
  server = await startSandboxServer({ seed: 'wait', clients: [APP], now: clock.now });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function session(overrides: Partial<ClientOptions> = {}) {
  const { ob } = clientFor(server, APP, { now: clock.now, sleep: clock.sleep, ...overrides });
  const tokens = server.issueTokens({ clientId: APP.clientId, scope: SCOPES, kind: 'customer' });
  return ob.forCustomer({ ...tokens, expires_at: Math.floor(clock.now() / 1000) + 3600 });
}

/** The status reads of `batch` the sandbox received: when (ms after `start`, on its clock) and with which key. */
function polls(batch: string | number, start: number) {
  return server.requests.list({ path: `/openapi/v1/transactions/${batch}`, method: 'GET' }).map((r) => ({ at: r.at - start, key: r.idempotencyKey, status: r.status }));
}

describe('transfers.waitForCompletion (sandbox over HTTP, on its clock)', () => {
  it('PENDING for 3 reads then SUCCESSFUL: resolves on the 4th read, polls 1 s, then 2 s, 4 s, 8 s apart, each its own call; the transfer is sent once', async () => {
    server.settleTransfers({ pendingReads: 3 });
    const s = session();
    const sent = await s.transfers.create(transfer);
    const start = clock.now();
    const final = await s.transfers.waitForCompletion(sent.batch_reference!);
    expect(final).toMatchObject({ status: 'SUCCESSFUL', status_message: 'Transfer completed' });
    const seen = polls(sent.batch_reference!, start);
    expect(seen.map((p) => p.at)).toEqual([1_000, 3_000, 7_000, 15_000]);
    expect(new Set(seen.map((p) => p.key)).size).toBe(4);
    expect(server.requests.count({ path: '/openapi/v1/transactions/transfer', method: 'POST' })).toBe(1);
    expect(server.payments()).toHaveLength(1);
  });

  it('takes what transfers.create returned: its batch_reference as typed (no `!`), or the transfer itself; none is refused unsent', async () => {
    server.settleTransfers({ pendingReads: 1 });
    const s = session();
    const sent = await s.transfers.create(transfer);
    await expect(s.transfers.waitForCompletion(sent.batch_reference)).resolves.toMatchObject({ status: 'SUCCESSFUL' });
    await expect(s.transfers.waitForCompletion(sent)).resolves.toMatchObject({ status: 'SUCCESSFUL' });
    const before = server.requests.count({ method: 'GET' });
    await expect(s.transfers.waitForCompletion({ ...sent, batch_reference: null })).rejects.toBeInstanceOf(ValidationError);
    await expect(s.transfers.waitForCompletion(undefined)).rejects.toBeInstanceOf(ValidationError);
    expect(server.requests.count({ method: 'GET' })).toBe(before);
  });

  it('FAILED is final: resolves with it at once', async () => {
    server.settleTransfers({ pendingReads: 1, result: 'FAILED' });
    const s = session();
    const sent = await s.transfers.create(transfer);
    const start = clock.now();
    await expect(s.transfers.waitForCompletion(sent.batch_reference!)).resolves.toMatchObject({ status: 'FAILED' });
    expect(polls(sent.batch_reference!, start).map((p) => p.at)).toEqual([1_000, 3_000]);
  });

  it('pending past the timeout: rejects at the deadline with TransferPendingError carrying the last read', async () => {
    server.settleTransfers({ pendingReads: Infinity });
    const s = session();
    const sent = await s.transfers.create(transfer);
    const start = clock.now();
    const error = await s.transfers.waitForCompletion(sent.batch_reference!, { timeout: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransferPendingError);
    expect(isTransferPendingError(error)).toBe(true);
    const pending = error as TransferPendingError;
    expect(pending.lastStatus).toMatchObject({ status: 'PENDING', reference: sent.batch_reference });
    expect(pending.batchReference).toBe(sent.batch_reference);
    expect(polls(sent.batch_reference!, start).map((p) => p.at)).toEqual([1_000, 3_000, 7_000]);
    expect(clock.now() - start).toBe(10_000);
    expect(server.requests.count({ path: '/openapi/v1/transactions/transfer', method: 'POST' })).toBe(1);
  });

  it('pending for sandbox time: settles once the time has passed', async () => {
    server.settleTransfers({ pendingReads: 0, pendingMs: 5_000 });
    const s = session();
    const sent = await s.transfers.create(transfer);
    const start = clock.now();
    await expect(s.transfers.waitForCompletion(sent.batch_reference!)).resolves.toMatchObject({ status: 'SUCCESSFUL' });
    expect(polls(sent.batch_reference!, start).map((p) => p.at)).toEqual([1_000, 3_000, 7_000]);
  });

  it('a poll in flight at the deadline is abandoned: TransferPendingError with no status read', async () => {
    const s = session();
    const sent = await s.transfers.create(transfer);
    // The first read leaves 1 s (on the sandbox's clock) before the 2 s deadline; the sandbox holds it 5 s.
    const held = server.faults.inject({ path: `/openapi/v1/transactions/${sent.batch_reference}`, times: 1, fault: { type: 'delay', ms: 5_000 } });
    const error = await s.transfers.waitForCompletion(sent.batch_reference!, { timeout: 2_000 }).catch((e: unknown) => e);
    expect(held.injected).toBe(1);
    expect(error).toBeInstanceOf(TransferPendingError);
    expect((error as TransferPendingError).lastStatus).toBeUndefined();
  });

  it("the caller's signal ends the wait with AbortError", async () => {
    server.settleTransfers({ pendingReads: Infinity });
    const controller = new AbortController();
    let sleeps = 0;
    const s = session({
      sleep: (ms, signal) => {
        if (++sleeps === 2) controller.abort(); // during the gap after the first read
        return clock.sleep(ms, signal);
      },
    });
    const sent = await s.transfers.create(transfer);
    const start = clock.now();
    await expect(s.transfers.waitForCompletion(sent.batch_reference!, { signal: controller.signal })).rejects.toBeInstanceOf(AbortError);
    expect(polls(sent.batch_reference!, start)).toHaveLength(1);
  });

  it("the caller's signal also aborts a poll in flight: AbortError, not TransferPendingError", async () => {
    const controller = new AbortController();
    const s = session();
    const sent = await s.transfers.create(transfer);
    const held = server.faults.inject({ path: `/openapi/v1/transactions/${sent.batch_reference}`, times: 1, fault: { type: 'delay', ms: 3_000 } });
    const waiting = s.transfers.waitForCompletion(sent.batch_reference!, { signal: controller.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(held.injected).toBe(1)); // the sandbox holds the read
    controller.abort();
    expect(await waiting).toBeInstanceOf(AbortError);
  });

  it('with rateLimit on, each poll waits for its place in the limiter', async () => {
    server.settleTransfers({ pendingReads: 1 });
    const s = session({ rateLimit: { rate: 6, burst: 1 } }); // one call per 10 s
    const sent = await s.transfers.create(transfer);
    const start = clock.now();
    await expect(s.transfers.waitForCompletion(sent.batch_reference!, { timeout: 60_000 })).resolves.toMatchObject({ status: 'SUCCESSFUL' });
    // Without the limiter the reads would come at 1 s and 3 s.
    expect(polls(sent.batch_reference!, start).map((p) => p.at)).toEqual([10_000, 20_000]);
  });

  it('bad arguments reject with ValidationError before any read', async () => {
    const s = session();
    const before = server.requests.count();
    await expect(s.transfers.waitForCompletion('', {})).rejects.toBeInstanceOf(ValidationError);
    await expect(s.transfers.waitForCompletion(undefined as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(s.transfers.waitForCompletion('BATCH000000000', { timeout: -1 })).rejects.toBeInstanceOf(ValidationError);
    expect(server.requests.count()).toBe(before);
  });

  it('every bad argument is a typed error at once: no wait, no read', async () => {
    let sleeps = 0;
    const s = session({ sleep: (ms, signal) => (sleeps++, clock.sleep(ms, signal)) });
    const { ob } = clientFor(server, APP, { now: clock.now, sleep: () => (sleeps++, Promise.resolve()) });
    const narrow = ob.forCustomer({ ...server.issueTokens({ clientId: APP.clientId, scope: ['transfers.transactions.create'], kind: 'customer' }), expires_at: Math.floor(clock.now() / 1000) + 3600 });
    const before = server.requests.count();
    const refusals = await Promise.all(
      [
        s.transfers.waitForCompletion('BATCH000000000', 5 as never),
        s.transfers.waitForCompletion('BATCH000000000', { signal: 'stop' as never }),
        s.transfers.waitForCompletion('BATCH000000000', { timeout: '60000' as never }),
        s.transfers.waitForCompletion('BATCH000000000', { timeot: 60_000 } as never),
        s.transfers.waitForCompletion('..'),
        s.transfers.waitForCompletion({} as never),
        ob.transfers.waitForCompletion('BATCH000000000'), // a customer operation, on the client
        narrow.transfers.waitForCompletion('BATCH000000000'), // transfers.transactions.query not granted
      ].map((p) => p.catch((e: unknown) => e)),
    );
    for (const error of refusals) expect(error).toBeInstanceOf(ValidationError);
    expect(refusals.slice(6).map((e) => (e as ValidationError).issues[0]!.code)).toEqual(['customer_token_required', 'scope_not_granted']);
    expect(sleeps).toBe(0);
    expect(server.requests.count()).toBe(before);
  });
});

describe('transfers.waitForCompletion: pending statuses (msw)', () => {
  const msw = useMsw();

  it('PENDING, PROCESSING, IN_PROGRESS and INITIATED in any case keep it polling; any other value is final; gaps stop growing at 30 s', async () => {
    expect(TRANSFER_PENDING_STATUSES).toEqual(['PENDING', 'PROCESSING', 'IN_PROGRESS', 'INITIATED']);
    const answers = ['processing', 'In_Progress', 'initiated', 'Pending', 'PENDING', 'pending', 'PENDING', 'REVERSED'];
    const keys: string[] = [];
    msw.use(
      http.get(`${BASE}/transactions/:ref`, ({ request }) => {
        keys.push(request.headers.get('idempotency-key')!);
        return HttpResponse.json({ status: '00', message: 'ok', data: { reference: 'R1', status: answers[keys.length - 1] } });
      }),
    );
    const { ob, sleeps } = testClient();
    const s = ob.forCustomer({ access_token: 'customer-at', token_type: 'Bearer', expires_in: 3600, expires_at: Math.floor(Date.now() / 1000) + 3600 });
    await expect(s.transfers.waitForCompletion('R1', { timeout: 600_000 })).resolves.toMatchObject({ status: 'REVERSED' });
    expect(keys).toHaveLength(8);
    expect(new Set(keys).size).toBe(8);
    expect(sleeps).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });
});
