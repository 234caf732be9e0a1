import { ValidationError } from '../errors/base.js';
import type { FleetBucket, FleetStore, FleetTake } from '../core/store.js';

/**
 * A connected Redis client: node-redis 4+ (`createClient(...)` after `await client.connect()`) or
 * ioredis (`new Redis(...)`). Only the members the SDK uses are named; pass the client itself.
 * @group Fleets
 */
export type RedisClientLike =
  | {
      /** node-redis: sends one command given as strings. */
      sendCommand(args: string[]): Promise<unknown>;
      /** node-redis: true once `connect()` was called and until `quit()`/`disconnect()`. */
      readonly isOpen: boolean;
    }
  | {
      /** ioredis: sends one command. */
      call(command: string, ...args: string[]): Promise<unknown>;
      /** ioredis: connection state (`'ready'`, `'connecting'`, `'wait'`, `'end'`, …). */
      readonly status: string;
    };

/**
 * Options of {@link redisFleet}.
 * @group Fleets
 */
export interface RedisFleetOptions {
  /**
   * Put before every key the SDK writes (`<prefix>:openbanking-ng:<clientId>:…`), so several
   * applications can share one Redis. Visible ASCII, no spaces, up to 100 characters.
   */
  prefix?: string;
}

type Send = (args: string[]) => Promise<unknown>;

// One atomic script per step. KEYS[1] is the key; the rest is in ARGV.
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if (ARGV[1] == '0' and current == false) or (ARGV[1] == '1' and current == ARGV[2]) then
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
  return 1
end
return 0`;

const COMPARE_AND_DELETE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/** The token bucket: refill since the last take, reserve one unit unless the wait exceeds maxWait (-1: no limit). */
export const TAKE_SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local max_wait = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local saved = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
local tokens = tonumber(saved[1]) or burst
local updated = tonumber(saved[2]) or now
local per_ms = rate / 60000
if now > updated then
  tokens = math.min(burst, tokens + (now - updated) * per_ms)
  updated = now
end
tokens = tokens - 1
local granted = 1
local wait = 0
if tokens < 0 then
  wait = math.ceil(-tokens / per_ms)
  if max_wait >= 0 and wait > max_wait then
    tokens = tokens + 1
    granted = 0
  end
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'updated', string.format('%.17g', updated))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / per_ms) + 60000)
return {granted, tostring(wait)}`;

const PREFIX = /^[\x21-\x7e]{1,100}$/;

function fail(path: string, message: string, code: string): never {
  throw new ValidationError('Invalid redisFleet arguments', [{ path, message, code }]);
}

/** The one command function of either client, or a `ValidationError` saying what is wrong with it. */
function commandOf(client: unknown): Send {
  if (typeof client !== 'object' || client === null) {
    fail('client', 'must be a connected Redis client: node-redis 4+ (createClient(...).connect()) or ioredis (new Redis(...))', 'invalid_type');
  }
  const c = client as Record<string, unknown>;
  if (typeof c.sendCommand === 'function' && typeof c.isOpen === 'boolean') {
    if (!c.isOpen) fail('client', 'is a node-redis client that is not connected: await client.connect() first', 'not_connected');
    const send = c.sendCommand as (args: string[]) => Promise<unknown>;
    return (args) => send.call(client, args);
  }
  if (typeof c.call === 'function' && typeof c.status === 'string') {
    if (c.status === 'wait' || c.status === 'end') {
      fail('client', `is an ioredis client that is not connected (status '${c.status}'): call client.connect() first, or create it without lazyConnect`, 'not_connected');
    }
    const call = c.call as (command: string, ...args: string[]) => Promise<unknown>;
    return (args) => call.call(client, args[0]!, ...args.slice(1));
  }
  return fail('client', 'is not a Redis client: give a node-redis 4+ client (with sendCommand and isOpen) or an ioredis client (with call and status)', 'invalid_type');
}

function randomOwner(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function sha1(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A FleetStore over one Redis connection; see {@link redisFleet}. */
class RedisFleetStore implements FleetStore {
  readonly #send: Send;
  readonly #prefix: string;
  readonly #shas = new Map<string, Promise<string>>();

  constructor(send: Send, prefix: string) {
    this.#send = send;
    this.#prefix = prefix;
  }

  #key(key: string): string {
    return this.#prefix + key;
  }

  /** EVALSHA, and EVAL when the server does not know the script (first use, or after a restart). */
  async #script(script: string, key: string, args: string[]): Promise<unknown> {
    let sha = this.#shas.get(script);
    if (sha === undefined) {
      sha = sha1(script);
      this.#shas.set(script, sha);
      return this.#send(['EVAL', script, '1', this.#key(key), ...args]);
    }
    try {
      return await this.#send(['EVALSHA', await sha, '1', this.#key(key), ...args]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return this.#send(['EVAL', script, '1', this.#key(key), ...args]);
    }
  }

  async get(key: string): Promise<string | undefined> {
    const value = await this.#send(['GET', this.#key(key)]);
    return value === null || value === undefined ? undefined : String(value);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#send(['SET', this.#key(key), value, 'PX', String(Math.max(1, Math.ceil(ttlMs)))]);
  }

  async compareAndSet(key: string, expected: string | undefined, value: string, ttlMs: number): Promise<boolean> {
    const flag = expected === undefined ? '0' : '1';
    return Number(await this.#script(COMPARE_AND_SET, key, [flag, expected ?? '', value, String(Math.max(1, Math.ceil(ttlMs)))])) === 1;
  }

  async compareAndDelete(key: string, expected: string): Promise<boolean> {
    return Number(await this.#script(COMPARE_AND_DELETE, key, [expected])) === 1;
  }

  async lock(key: string, ttlMs: number): Promise<string | undefined> {
    const owner = randomOwner();
    const answer = await this.#send(['SET', this.#key(key), owner, 'NX', 'PX', String(Math.max(1, Math.ceil(ttlMs)))]);
    if (answer === null || answer === undefined) return undefined;
    // Only OK grants the lock: any other answer cannot be read as one (the SDK then does not take it as held).
    if (answer !== 'OK') throw new TypeError('Redis answered SET NX with neither OK nor nil');
    return owner;
  }

  async unlock(key: string, owner: string): Promise<void> {
    await this.compareAndDelete(key, owner);
  }

  async take(key: string, b: FleetBucket): Promise<FleetTake> {
    const maxWait = Number.isFinite(b.maxWait) ? String(Math.max(0, Math.floor(b.maxWait))) : '-1';
    const answer = (await this.#script(TAKE_SCRIPT, key, [String(b.rate), String(b.burst), maxWait, String(b.now)])) as unknown[];
    return { granted: Number(answer[0]) === 1, wait: Number(answer[1]) };
  }

  /** A view for logs: never the client, a key or a value. */
  toJSON(): Record<string, unknown> {
    return { type: 'redisFleet', prefix: this.#prefix.slice(0, -1) || undefined };
  }

  /** @internal */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `RedisFleetStore ${JSON.stringify(this.toJSON())}`;
  }
}

/**
 * Fleet coordination on Redis: give the result as the client's `fleet` option in every process.
 * Takes your connected client (node-redis 4+ or ioredis; this package depends on neither) and
 * keeps under `<prefix>:openbanking-ng:<clientId>:…` the client-credentials tokens, the rate
 * budget (one Lua script, atomic), customers' latest token sets and locks, and recent ciphertexts.
 * Throws `ValidationError` at once when `client` is not a Redis client, is not connected, or
 * `prefix` has spaces.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { OpenBanking } from 'openbanking-ng';
 * import { redisFleet } from 'openbanking-ng/redis';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const ob = new OpenBanking({
 *   clientId: process.env.OB_CLIENT_ID!,
 *   clientSecret: process.env.OB_CLIENT_SECRET!,
 *   fleet: redisFleet(redis, { prefix: 'myapp' }),
 *   rateLimit: true,
 * });
 * ```
 * @group Fleets
 */
export function redisFleet(client: RedisClientLike, options: RedisFleetOptions = {}): FleetStore {
  const send = commandOf(client);
  if (typeof options !== 'object' || options === null) fail('options', 'must be an object { prefix }', 'invalid_type');
  const prefix = options.prefix;
  if (prefix !== undefined && (typeof prefix !== 'string' || !PREFIX.test(prefix))) {
    fail('options.prefix', 'must be 1 to 100 visible ASCII characters with no spaces, e.g. "myapp"', 'invalid_format');
  }
  return new RedisFleetStore(send, prefix === undefined ? '' : `${prefix}:`);
}
