// The customer refresh protocol explored over schedules (fast-check's `fc.scheduler()`): 3 to 5
// simulated processes (OpenBanking clients, each with its own view of one in-memory FleetStore) on
// one customer id, a scripted identity host that rotates refresh tokens and refuses a reused one
// with invalid_grant, and faults chosen by the property. Every store answer, every request to the
// host and every fault event is a task the scheduler releases in an order it picks; time (fake
// timers) moves only when nothing else can. The network between a process and the identity host
// fails as networks do (answers lost or cut after the host rotated, 5xx before or after, an
// unreadable 200, a 429, an OAuth refusal, a connection reset or refused before the request was
// written). Four properties are checked on every schedule.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { vi } from 'vitest';
import { ConnectionError, type FleetBucket, type FleetStore, type FleetTake, MemoryFleetStore, OpenBanking, type TokenSet } from '../../src/index.js';
import type { CustomerSession } from '../../src/auth/customer-session.js';
import { storeSealer } from '../../src/crypto/seal.js';

const SECRET = 'schedule-secret-0123456789';
const CLIENT = 'app';
const AUTH = 'https://identity.schedule.test';
const BASE = 'https://api.schedule.test/openapi/v1';
const ID = 'customer-42';
/** The client's `timeout`: the lock TTL is 2 s, and a claim without an outcome is given up after 20 s. */
const TIMEOUT = 1_000;
const LOCK_TTL = TIMEOUT + 1_000;
/** Access tokens the host issues live a minute: a process that calls over a few minutes refreshes. */
const ACCESS_LIFETIME = 60;
const T0 = Date.UTC(2031, 0, 1);

/** A property of the protocol that a schedule broke. */
export class Violation extends Error {
  override name = 'Violation';
  constructor(
    readonly property: PropertyName,
    detail: string,
  ) {
    super(`${property}: ${detail}`);
  }
}

/** The four properties, by the words the tests and the report use. */
export type PropertyName = 'no refresh token sent twice' | 'no session holding a valid newer consent ended' | 'no call carries a token not issued to its customer' | 'nothing fails open';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const claimKey = (rt: string) => `openbanking-ng:${CLIENT}:claim:${sha256(rt)}`;
const setKey = `openbanking-ng:${CLIENT}:customer:${ID}`;

// ── the scripted identity host and API ──────────────────────────────────────────────────────────

interface Issued {
  consent: number;
  customer: string;
}

/** Rotates refresh tokens, refuses a spent, unknown or revoked one with invalid_grant, serves /accounts to its access tokens. */
class Host {
  readonly refreshTokens = new Map<string, Issued & { spent: boolean }>();
  readonly accessTokens = new Map<string, Issued & { expiresAt: number }>();
  readonly revoked = new Set<number>();
  /** Every refresh token the host received and may have acted on, in order (not those it refused outright with a 429 or an OAuth error). */
  readonly sent: string[] = [];
  #next = 0;
  #consents = 0;

  /** A new consent of the customer: its first token set, as `ob.auth.exchangeCode` would return it. */
  consent(): TokenSet {
    return this.#issue(++this.#consents, ID);
  }

  #issue(consent: number, customer: string): TokenSet {
    const n = ++this.#next;
    const access = `at-${consent}-${n}`;
    const refresh = `rt-${consent}-${n}`;
    this.accessTokens.set(access, { consent, customer, expiresAt: Date.now() + ACCESS_LIFETIME * 1000 });
    this.refreshTokens.set(refresh, { consent, customer, spent: false });
    return { access_token: access, refresh_token: refresh, token_type: 'Bearer', expires_in: ACCESS_LIFETIME, expires_at: Math.floor(Date.now() / 1000) + ACCESS_LIFETIME };
  }

  /** Whether the host would still honour `rt`: issued, never sent, its consent not revoked. */
  live(rt: string | undefined): boolean {
    const token = rt === undefined ? undefined : this.refreshTokens.get(rt);
    return token !== undefined && !token.spent && !this.revoked.has(token.consent) && !this.sent.includes(rt!);
  }

  refresh(rt: string): Response {
    this.sent.push(rt);
    const token = this.refreshTokens.get(rt);
    if (!token || token.spent || this.revoked.has(token.consent)) return Response.json({ error: 'invalid_grant', error_description: 'refresh token not valid' }, { status: 400 });
    token.spent = true;
    const { expires_at: _, ...answer } = this.#issue(token.consent, token.customer);
    return Response.json(answer);
  }

  api(authorization: string | null): Response {
    const token = this.accessTokens.get((authorization ?? '').replace(/^Bearer /, ''));
    if (!token || token.expiresAt <= Date.now() || this.revoked.has(token.consent)) return Response.json({ status: '02', message: 'Unauthorized', data: {} }, { status: 401 });
    return Response.json({ status: '00', message: 'ok', data: { accounts: [] } });
  }
}

// ── the plan a property draws ───────────────────────────────────────────────────────────────────

type StoreMethod = 'get' | 'set' | 'compareAndSet' | 'compareAndDelete' | 'lock' | 'unlock';
type FaultKind = 'fail' | 'lose' | 'hang';
/** What the network does to one grant (see `networkFaults`). */
export type NetworkFault = 'lost after rotating' | '5xx after rotating' | '5xx before' | 'cut after rotating' | 'unreadable 200' | '429' | 'oauth error' | 'reset before written' | 'refused before written';
const networkFaults: NetworkFault[] = ['lost after rotating', '5xx after rotating', '5xx before', 'cut after rotating', 'unreadable 200', '429', 'oauth error', 'reset before written', 'refused before written'];

/** What one schedule does: processes, their calls, and the faults. */
export interface Plan {
  processes: { skewMs: number; calls: { gapMs: number; refresh: boolean }[] }[];
  /** A store call of a process that fails, loses its answer (applied, then the connection drops) or hangs past the lock TTL. */
  storeFaults: { proc: number; method: StoreMethod; nth: number; kind: FaultKind; hangMs: number }[];
  /** A process that stalls around its n-th refresh grant (before the host has it, or after), or dies there. */
  grantFaults: { proc: number; nth: number; when: 'before' | 'after'; kind: 'stall' | 'die'; ms: number }[];
  /**
   * What the network does to a process's n-th grant: its answer lost, cut, turned into a 5xx or an
   * unreadable 200 after the host rotated the token; a 5xx before the host acted; a 429 or an OAuth
   * refusal (the host did not act); the connection reset or refused before the request was written.
   */
  networkFaults: { proc: number; nth: number; kind: NetworkFault }[];
  /** Consent 1 revoked at the host, from `atMs` on (the scheduler picks the moment after it). */
  revoke: { atMs: number } | undefined;
  /** Processes given a newer consent (`setTokens`), from `atMs` on. */
  newConsent: { proc: number; atMs: number }[];
  /** A value planted in the store from `atMs` on: one that does not open at the claim of a process's refresh token, or an unsealed token set under the customer's key. */
  plant: { kind: 'garbled-claim' | 'plain-set'; proc: number; atMs: number } | undefined;
}

const storeMethods: StoreMethod[] = ['get', 'set', 'compareAndSet', 'compareAndDelete', 'lock', 'unlock'];
/** When an event may happen: within the processes' calls (their gaps add up to 270 s at most). */
const moment = fc.integer({ min: 0, max: 180_000 });

/** Plans of 3 to 5 processes with faults. */
export const plans: fc.Arbitrary<Plan> = fc.integer({ min: 3, max: 5 }).chain((n) =>
  fc.record({
    processes: fc.array(
      fc.record({
        skewMs: fc.integer({ min: -120_000, max: 120_000 }),
        calls: fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 90_000 }), refresh: fc.boolean() }), { minLength: 1, maxLength: 3 }),
      }),
      { minLength: n, maxLength: n },
    ),
    storeFaults: fc.array(
      fc.record({ proc: fc.nat(n - 1), method: fc.constantFrom(...storeMethods), nth: fc.nat(3), kind: fc.constantFrom<FaultKind>('fail', 'lose', 'hang'), hangMs: fc.integer({ min: 300, max: 3 * LOCK_TTL }) }),
      { maxLength: 4 },
    ),
    grantFaults: fc.array(
      fc.record({ proc: fc.nat(n - 1), nth: fc.nat(1), when: fc.constantFrom<'before' | 'after'>('before', 'after'), kind: fc.constantFrom<'stall' | 'die'>('stall', 'die'), ms: fc.integer({ min: 0, max: 3 * LOCK_TTL }) }),
      { maxLength: 2 },
    ),
    networkFaults: fc.array(fc.record({ proc: fc.nat(n - 1), nth: fc.nat(1), kind: fc.constantFrom(...networkFaults) }), { maxLength: 2 }),
    revoke: fc.option(fc.record({ atMs: moment }), { nil: undefined, freq: 2 }),
    newConsent: fc.uniqueArray(fc.record({ proc: fc.nat(n - 1), atMs: moment }), { maxLength: 2, selector: (c) => c.proc }),
    plant: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 4 },
      { arbitrary: fc.record({ kind: fc.constantFrom<'garbled-claim' | 'plain-set'>('garbled-claim', 'plain-set'), proc: fc.nat(n - 1), atMs: moment }), weight: 1 },
    ),
  }),
);

// ── deterministic Web Crypto: results delivered one at a time, in call order ───────────────────

const realImmediate = globalThis.setImmediate;
const realCrypto = globalThis.crypto;
/** Web Crypto results by call number, delivered by `quiesce` in call order: a schedule replays exactly. */
const cryptoResults = new Map<number, { settled: boolean; deliver: () => void }>();
let cryptoCalls = 0;
let cryptoDelivered = 0;

function orderedSubtle(): SubtleCrypto {
  const subtle = realCrypto.subtle;
  return new Proxy(subtle, {
    get(target, name) {
      const value = Reflect.get(target, name, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        count('crypto operations');
        const call = cryptoCalls++;
        return new Promise((resolve, reject) => {
          const entry = { settled: false, deliver: () => undefined as void };
          cryptoResults.set(call, entry);
          (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).then(
            (result) => Object.assign(entry, { settled: true, deliver: () => resolve(result) }),
            (error: unknown) => Object.assign(entry, { settled: true, deliver: () => reject(error) }),
          );
        });
      };
    },
  });
}

const deterministicCrypto = {
  subtle: orderedSubtle(),
  getRandomValues: <T extends ArrayBufferView | null>(array: T): T => realCrypto.getRandomValues(array as never) as T,
  randomUUID: () => realCrypto.randomUUID(),
};

/** Lets every microtask run and hands over the Web Crypto results in call order, one at a time: what the schedule sees next is then fixed. */
async function quiesce(): Promise<void> {
  for (;;) {
    for (let i = 0; i < 64; i++) await Promise.resolve();
    const next = cryptoResults.get(cryptoDelivered);
    if (next?.settled) {
      cryptoResults.delete(cryptoDelivered++);
      next.deliver();
      continue;
    }
    if (cryptoDelivered === cryptoCalls) return;
    await new Promise((resolve) => realImmediate(resolve));
  }
}

// ── one schedule ────────────────────────────────────────────────────────────────────────────────

interface CallRecord {
  proc: number;
  /** The process's store faults and deliveries of the planted claim when the call started and ended. */
  faults: [number, number];
  garbledReads: [number, number];
  error?: unknown;
}

/** A fleet process: its client, its session, and what it did. */
interface Proc {
  index: number;
  ob: OpenBanking;
  session: CustomerSession;
  /** Its client instance, learnt from the claims it writes. */
  instance: string | undefined;
  dead: boolean;
  grants: number;
  ops: Map<StoreMethod, number>;
  /** Store faults injected so far, and answers that handed it the planted claim that does not open. */
  faults: number;
  garbledReads: number;
}

const sealer = storeSealer(SECRET);

/** What the schedules did, summed (printed with SCHEDULE_STATS=1): to see that they reach the interesting places. */
export const stats: Record<string, number> = {};
const count = (name: string) => void (stats[name] = (stats[name] ?? 0) + 1);

/** The whole world of one schedule: runs the plan under the scheduler and checks the properties. */
export async function runSchedule(s: fc.Scheduler, plan: Plan, only?: PropertyName): Promise<void> {
  const host = new Host();
  const store = new MemoryFleetStore();
  const calls: CallRecord[] = [];
  const violations: Violation[] = [];
  const violate = (property: PropertyName, detail: string) => violations.push(new Violation(property, detail));
  const never = new Promise<never>(() => undefined);
  const go = (label: string) => s.schedule(Promise.resolve(), label);
  const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  let garbledRt: string | undefined;

  const first = host.consent();
  const procs: Proc[] = [];

  /** The store as process `p` sees it: every answer released by the scheduler, faults as planned. */
  const storeOf = (p: () => Proc): FleetStore => {
    const op = <T>(method: StoreMethod, apply: () => Promise<T>, args: unknown[]): Promise<T> => {
      const proc = p();
      if (proc.dead) return never;
      const nth = proc.ops.get(method) ?? 0;
      proc.ops.set(method, nth + 1);
      if (method === 'compareAndSet' && String(args[0]).includes(':claim:')) void learnInstance(proc, String(args[0]), args[2] as string);
      const fault = plan.storeFaults.find((f) => f.proc === proc.index && f.method === method && f.nth === nth);
      return go(`${proc.index}:${method}`).then(async () => {
        if (proc.dead) return never;
        if (fault) proc.faults++;
        if (fault?.kind === 'fail') throw new Error('connection refused');
        if (fault?.kind === 'hang') await wait(fault.hangMs);
        const answer = await apply();
        if (fault?.kind === 'lose') throw new Error('connection reset');
        if (method === 'get' && garbledRt !== undefined && args[0] === claimKey(garbledRt) && answer !== undefined) proc.garbledReads++;
        return answer;
      });
    };
    return {
      get: (key) =>
        op('get', () => store.get(key), [key]).then((value) => {
          if (key === setKey) count(value?.startsWith('{') ? 'customer set read: planted' : value === undefined ? 'customer set read: none' : 'customer set read: sealed');
          return value;
        }),
      set: (key, value, ttl) => op('set', () => store.set(key, value, ttl), [key]),
      compareAndSet: (key, expected, value, ttl) => op('compareAndSet', () => store.compareAndSet(key, expected, value, ttl), [key, expected, value]),
      compareAndDelete: (key, expected) => op('compareAndDelete', () => store.compareAndDelete(key, expected), [key]),
      lock: (key, ttl) => op('lock', () => store.lock(key, ttl), [key]),
      unlock: (key, owner) => op('unlock', () => store.unlock(key, owner), [key]),
      take: (key: string, bucket: FleetBucket): Promise<FleetTake> => store.take(key, bucket),
    };
  };

  const learnInstance = async (proc: Proc, key: string, value: string) => {
    const claim = JSON.parse((await sealer.open(key, value)) ?? '{}') as { by?: string };
    if (claim.by) proc.instance ??= claim.by;
  };

  /** Nothing fails open (a): a grant goes out only after its sender's own claim on that token is in the store. */
  const checkClaimed = async (proc: Proc, rt: string) => {
    const raw = await store.get(claimKey(rt));
    const claim = raw === undefined ? undefined : (JSON.parse((await sealer.open(claimKey(rt), raw)) ?? '{}') as { by?: string });
    if (claim?.by === undefined || claim.by !== proc.instance) violate('nothing fails open', `process ${proc.index} sent ${rt} without its own claim on it in the store`);
  };

  /** The host as process `p` reaches it: requests released by the scheduler, stalls and deaths as planned. */
  const fetchOf =
    (p: () => Proc): typeof fetch =>
    async (input, init) => {
      const proc = p();
      const request = new Request(input, init);
      if (proc.dead) return never;
      if (request.url.startsWith(AUTH)) {
        const rt = new URLSearchParams(await request.text()).get('refresh_token') ?? '';
        const nth = proc.grants++;
        const fault = plan.grantFaults.find((f) => f.proc === proc.index && f.nth === nth);
        const network = plan.networkFaults.find((f) => f.proc === proc.index && f.nth === nth)?.kind;
        await go(`${proc.index}:grant`);
        if (fault?.when === 'before') {
          if (fault.kind === 'die') return die(proc);
          await wait(fault.ms);
        }
        if (proc.dead) return never;
        await checkClaimed(proc, rt);
        if (network !== undefined) count(`grants faulted: ${network}`);
        // Never reached the host: the connection failed before the request was written.
        if (network === 'refused before written') throw networkError('ECONNREFUSED');
        if (network === 'reset before written') throw networkError('ECONNRESET');
        if (host.sent.includes(rt)) violate('no refresh token sent twice', `${rt} sent again by process ${proc.index}${network ? ` (${network})` : ''}`);
        // Refused outright: the host did not act, so the token is not spent.
        if (network === '429') return Response.json({ status: '06', message: 'Too many requests', data: {} }, { status: 429, headers: { 'retry-after': '1' } });
        if (network === 'oauth error') return Response.json({ error: 'invalid_request', error_description: 'try again' }, { status: 400 });
        // Received by the host's gateway, which failed before the host acted: sent, not spent.
        if (network === '5xx before') {
          host.sent.push(rt);
          return Response.json({ status: '05', message: 'Service unavailable', data: {} }, { status: 503 });
        }
        const answer = host.refresh(rt);
        count(answer.status === 200 ? 'grants redeemed' : 'grants refused');
        if (fault?.when === 'after') {
          if (fault.kind === 'die') return die(proc);
          await wait(fault.ms);
        }
        return spoil(answer, network);
      }
      await go(`${proc.index}:api`);
      if (proc.dead) return never;
      const bearer = (request.headers.get('authorization') ?? '').replace(/^Bearer /, '');
      const issued = host.accessTokens.get(bearer);
      if (issued?.customer !== ID) violate('no call carries a token not issued to its customer', `process ${proc.index} called with ${bearer || 'no token'}`);
      return host.api(request.headers.get('authorization'));
    };

  /** The host's answer as the network delivers it after the host acted: lost, turned into a 502, cut half-way, or with a token type the client cannot use. */
  const spoil = async (answer: Response, network: NetworkFault | undefined): Promise<Response> => {
    if (network === 'lost after rotating') throw networkError('ECONNRESET');
    if (network === '5xx after rotating') return Response.json({ status: '05', message: 'Bad gateway', data: {} }, { status: 502 });
    const text = await answer.text();
    if (network === 'unreadable 200' && answer.ok) return Response.json({ ...(JSON.parse(text) as object), token_type: 'MAC' });
    if (network === 'cut after rotating') return cutOff(text, answer.status);
    return new Response(text, { status: answer.status, headers: answer.headers });
  };

  const die = (proc: Proc): Promise<never> => {
    count('processes died');
    proc.dead = true;
    return never;
  };

  for (const [index, script] of plan.processes.entries()) {
    let self!: Proc;
    const ob = new OpenBanking({
      clientId: CLIENT,
      clientSecret: SECRET,
      baseUrl: BASE,
      authUrl: AUTH,
      fetch: fetchOf(() => self),
      fleet: storeOf(() => self),
      timeout: TIMEOUT,
      maxRetries: 0,
      logLevel: 'off',
      now: () => Date.now() + script.skewMs,
    });
    const session = ob.forCustomer(first, {
      id: ID,
      onTokens: () => count('onTokens'),
      onConsentEnded: (error) => {
        count(`ended (${error.reason})`);
        // The session holds what it held when it ended: was that a refresh token the host still honours, and nobody claimed?
        const held = session.tokens.refresh_token;
        if (!host.live(held)) return;
        void store.get(claimKey(held!)).then((claim) => {
          if (claim === undefined) violate('no session holding a valid newer consent ended', `process ${index} ended (${error.reason}) holding ${held}, never sent nor claimed`);
        });
      },
    });
    self = { index, ob, session, instance: undefined, dead: false, grants: 0, ops: new Map(), faults: 0, garbledReads: 0 };
    procs.push(self);
  }

  // Events the scheduler places among the rest, each from its moment on: a revocation, newer consents, a planted value.
  const event = (atMs: number, label: string, act: () => unknown) => void wait(atMs).then(() => go(label)).then(act);
  if (plan.revoke) event(plan.revoke.atMs, 'revoke', () => host.revoked.add(1));
  for (const { proc, atMs } of plan.newConsent) {
    event(atMs, `consent:${proc}`, () => {
      if (!procs[proc]!.dead) procs[proc]!.session.setTokens(host.consent());
    });
  }
  const plant = plan.plant;
  if (plant?.kind === 'garbled-claim') {
    event(plant.atMs, 'plant', async () => {
      const rt = procs[plant.proc]!.session.tokens.refresh_token!;
      // Sealed under a secret no process has: present, and it does not open. Planted only where no claim is yet.
      const garbled = await storeSealer('another-secret').seal(claimKey(rt), JSON.stringify({ by: 'elsewhere' }));
      if (await store.compareAndSet(claimKey(rt), undefined, garbled, 60_000_000)) garbledRt = rt;
    });
  } else if (plant?.kind === 'plain-set') {
    const planted = { access_token: 'ATTACKER-at', refresh_token: 'ATTACKER-rt', token_type: 'Bearer', expires_in: 3600, expires_at: Math.floor(T0 / 1000) + 7200 };
    event(plant.atMs, 'plant', () => store.set(setKey, JSON.stringify(planted), 60_000_000));
  }

  const scripts = procs.map(async (proc, i) => {
    for (const call of plan.processes[i]!.calls) {
      await wait(call.gapMs);
      if (proc.dead) return;
      const record: CallRecord = { proc: i, faults: [proc.faults, 0], garbledReads: [proc.garbledReads, 0] };
      calls.push(record);
      try {
        await (call.refresh ? proc.session.refresh() : proc.session.request({ method: 'GET', path: '/accounts' }));
        count('calls resolved');
      } catch (error) {
        record.error = error;
        count(`calls rejected with ${(error as Error).name}${/does not open/.test((error as Error).message) ? ' (does not open)' : ''}`);
      }
      record.faults[1] = proc.faults;
      record.garbledReads[1] = proc.garbledReads;
    }
  });
  let settled = 0;
  for (const script of scripts) void script.finally(() => settled++);

  // Releases one task at a time (the scheduler picks which); moves time only when nothing else can.
  for (let step = 0; ; step++) {
    await quiesce();
    const live = procs.filter((p) => !p.dead).length;
    if (settled >= live) break;
    if (step > 20_000) throw new Error(`the schedule did not finish: ${scripts.length - settled} processes still calling`);
    if (s.count() > 0) {
      count('tasks released');
      await s.waitNext(1);
    } else if (vi.getTimerCount() > 0) {
      count('timers fired');
      vi.advanceTimersToNextTimer();
    }
    else break;
  }

  // Nothing fails open (b): a refresh that was handed a claim that does not open (and met no other
  // fault of the store) says so, and how to recover, rather than taking it for absent.
  for (const call of calls) {
    const metGarbled = call.garbledReads[1] > call.garbledReads[0];
    const otherFaults = call.faults[1] > call.faults[0];
    if (metGarbled && !otherFaults && call.error instanceof ConnectionError && !/does not open/.test(call.error.message)) {
      violate('nothing fails open', `process ${call.proc}, handed a claim that does not open, got "${call.error.message}"`);
    }
  }
  const broken = violations.find((v) => only === undefined || v.property === only);
  if (broken) throw broken;
}

/** What fetch rejects with when a connection fails: refused before the request was written, or reset. */
function networkError(code: 'ECONNREFUSED' | 'ECONNRESET'): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(`${code === 'ECONNREFUSED' ? 'connect' : 'read'} ${code}`), { code }) });
}

/** An answer whose body stops half-way: the connection closed while it was being read. */
function cutOff(text: string, status: number): Response {
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }));
      sent = true;
      controller.enqueue(new TextEncoder().encode(text.slice(0, Math.floor(text.length / 2))));
    },
  });
  return new Response(body, { status, headers: { 'content-type': 'application/json' } });
}

/**
 * Loads what the clients load lazily (the OAuth flows, the request pipeline) before the schedules
 * run, so that no module load, which takes real time, lands in the middle of one.
 */
export async function warmUp(): Promise<void> {
  const host = new Host();
  const tokens = { ...host.consent(), expires_at: 0 };
  const ob = new OpenBanking({ clientId: CLIENT, clientSecret: SECRET, baseUrl: BASE, authUrl: AUTH, fleet: new MemoryFleetStore(), logLevel: 'off', fetch: async (input, init) => {
    const request = new Request(input, init);
    return request.url.startsWith(AUTH) ? host.refresh(new URLSearchParams(await request.text()).get('refresh_token')!) : host.api(request.headers.get('authorization'));
  } });
  await ob.forCustomer(tokens, { id: ID }).request({ method: 'GET', path: '/accounts' });
}

/** The four properties over schedules; with `only`, a schedule fails on that property alone (to show what catches a break). */
export function scheduleProperty(only?: PropertyName) {
  return fc.asyncProperty(fc.scheduler({ act: async (f) => (await quiesce(), f()) }), plans, async (s, plan) => {
    vi.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'Date'] });
    vi.stubGlobal('crypto', deterministicCrypto);
    try {
      await runSchedule(s, plan, only);
    } finally {
      vi.unstubAllGlobals();
      vi.clearAllTimers();
      vi.useRealTimers();
    }
  });
}
