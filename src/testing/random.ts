/** Where the sandbox draws identifiers, tokens and fault decisions from. */
export interface Random {
  /** A number in [0, 1). */
  next(): number;
  /** `prefix` followed by `length` characters from [0-9A-Za-z]. */
  id(prefix: string, length?: number): string;
  /** `count` decimal digits. */
  digits(count: number): string;
  /** `count` characters a person can read aloud and type (no 0/O, 1/I). */
  userCode(count: number): string;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const READABLE = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** cyrb128: a 128-bit hash of the seed text, to start the generator from any string or number. */
function hashSeed(seed: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < seed.length; i++) {
    const k = seed.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

/** sfc32: a small, fast generator with a 128-bit state; the same seed always gives the same sequence. */
function sfc32(state: [number, number, number, number]): () => number {
  let [a, b, c, d] = state;
  return () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

/** Web Crypto randomness, for a sandbox without a seed. */
function cryptoNext(): number {
  const buffer = new Uint32Array(1);
  crypto.getRandomValues(buffer);
  return buffer[0]! / 4294967296;
}

/**
 * A seeded generator when `seed` is given (identical runs give identical identifiers and
 * fault decisions), otherwise Web Crypto.
 */
export function createRandom(seed?: number | string): Random {
  const next = seed === undefined ? cryptoNext : sfc32(hashSeed(String(seed)));
  const draw = (alphabet: string, count: number): string => {
    let out = '';
    for (let i = 0; i < count; i++) out += alphabet[Math.floor(next() * alphabet.length)];
    return out;
  };
  return {
    next,
    id: (prefix, length = 24) => prefix + draw(BASE62, length),
    digits: (count) => draw('0123456789', count),
    userCode: (count) => draw(READABLE, count),
  };
}
