import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { steps } from '../../src/auth/customer-refresh.js';
import { OAuthError, TimeoutError } from '../../src/index.js';
import { type PropertyName, scheduleProperty, Violation, warmUp } from './schedules.js';

// A schedule test is finished only when its properties fail on a broken protocol: each variant
// below replaces one step of the protocol (src/auth/customer-refresh.ts `steps`) with a
// deliberately broken one, and the same schedules must find one that breaks the property named.
// Between them, every property catches at least one break.

const original = { ...steps };
afterEach(() => void Object.assign(steps, original));

const variants: { name: string; breaks: () => void; caughtBy: PropertyName }[] = [
  {
    name: 'release the claim (as the lock once was) when storing the new set fails',
    breaks: () => void (steps.storeFailed = (_retry, release) => release()),
    caughtBy: 'no refresh token sent twice',
  },
  {
    name: 'give the claim up on any failure of the grant',
    breaks: () => void (steps.release = () => true),
    caughtBy: 'no refresh token sent twice',
  },
  {
    name: 'give the claim up as the SDK once did: on every failure but a timeout and an unreadable 2xx (a reset, a lost or cut answer, a 5xx, a 200 with another token type)',
    breaks: () => void (steps.release = (error) => !(error instanceof TimeoutError || (error instanceof OAuthError && error.status !== undefined && error.status < 300))),
    caughtBy: 'no refresh token sent twice',
  },
  {
    name: 'send the grant without a claim, under the lock alone',
    breaks: () => void (steps.claims = false),
    caughtBy: 'nothing fails open',
  },
  {
    name: 'compare clocks for endings: an ending written after the session got its tokens ends it',
    breaks: () => void (steps.ends = (ending, held, tokens) => ending.refresh === held || (ending.endedAt ?? -Infinity) >= (tokens.expires_at - tokens.expires_in) * 1000),
    caughtBy: 'no session holding a valid newer consent ended',
  },
  {
    name: 'read a value that does not open as written (an unsealed value from an earlier version)',
    breaks: () => void (steps.open = async (store, key, raw) => (await store.open(key, raw)) ?? raw),
    caughtBy: 'no call carries a token not issued to its customer',
  },
  {
    name: 'treat a value that does not open as absent',
    breaks: () => void (steps.open = (store, key, raw) => store.open(key, raw)),
    caughtBy: 'nothing fails open',
  },
];

describe('broken variants of the protocol: each is caught by a property', () => {
  beforeAll(warmUp);
  for (const variant of variants) {
    it(`${variant.name} → ${variant.caughtBy}`, { timeout: 600_000 }, async () => {
      variant.breaks();
      const run = await fc.check(scheduleProperty(variant.caughtBy), { seed: 7, numRuns: 4_000, endOnFailure: true });
      expect(run.failed, `no schedule broke a property in ${run.numRuns} runs`).toBe(true);
      const error = run.errorInstance;
      expect(error).toBeInstanceOf(Violation);
      expect((error as Violation).property).toBe(variant.caughtBy);
      console.log(`${variant.name}: caught by "${variant.caughtBy}" after ${run.numRuns} schedules (seed ${run.seed}): ${(error as Violation).message}`);
    });
  }

  it('every property catches at least one variant', () => {
    const caught = new Set(variants.map((v) => v.caughtBy));
    expect([...caught].sort()).toEqual(['no call carries a token not issued to its customer', 'no refresh token sent twice', 'no session holding a valid newer consent ended', 'nothing fails open']);
  });
});
