// What every runtime of the matrix runs, against the packed package installed beside it: the main
// entry and `/pkce` only (fetch and Web Crypto), so the same file runs on Node, Bun, Deno and workerd.
// The matrix (scripts/runtimes/matrix.mjs, on Node) checks the results a second time from its side:
// the card in the sandbox, the base64 signature recomputed with node:crypto, the ciphertexts
// decrypted by Node, the PKCE challenge redeemed for a token.
import { OpenBanking, aesCbcCipher, aesGcmCipher, isCipherError } from 'openbanking-ng';
import { createAuthorizationRequest, parseAuthorizationCallback } from 'openbanking-ng/pkce';

const REDIRECT_URI = 'http://127.0.0.1:3000/callback';
const CARD = {
  account_number: '0123456789',
  card_holder_name: 'Ada Obi',
  card_status: 'ACTIVE',
  card_default_pin: '1234',
  card_expiry: { month: '09', year: '2029' },
};

/**
 * Runs one named check, recording its outcome instead of stopping at the first failure.
 * @param {{ name: string; ok: boolean; detail: string }[]} checks
 * @param {string} name
 * @param {() => Promise<string>} run resolves to a one-line detail
 */
async function check(checks, name, run) {
  try {
    checks.push({ name, ok: true, detail: await run() });
  } catch (error) {
    checks.push({ name, ok: false, detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  }
}

/** @param {boolean} condition @param {string} message */
function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * A cipher's round trip, and a altered ciphertext refused with `CipherError`.
 * @param {import('openbanking-ng').FieldCipher} cipher
 */
async function roundTrip(cipher) {
  const ciphertext = await cipher.encrypt('1234');
  assert(ciphertext !== '1234', 'the ciphertext is the plaintext');
  assert((await cipher.decrypt(ciphertext)) === '1234', 'decrypt(encrypt(1234)) is not 1234');
  const altered = `${ciphertext.slice(0, -4)}${ciphertext.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
  const refusal = await cipher.decrypt(altered).then(
    () => undefined,
    (error) => error,
  );
  assert(isCipherError(refusal), `an altered ciphertext gave ${refusal === undefined ? 'a value' : String(refusal)} instead of CipherError`);
  return ciphertext;
}

/**
 * The checks of the main entry and `/pkce` against the sandbox at `sandboxUrl`.
 * @param {{ sandboxUrl: string }} input
 */
export async function probe({ sandboxUrl }) {
  /** @type {{ name: string; ok: boolean; detail: string }[]} */
  const checks = [];
  /** @type {Record<string, string>} */
  const artifacts = {};
  /** @type {import('openbanking-ng').Registration | undefined} */
  let registered;

  await check(checks, 'card', async () => {
    const registration = await OpenBanking.register({
      authUrl: sandboxUrl,
      username: 'runtime-matrix',
      password: 'not-a-secret',
      app_name: 'Runtime matrix',
      redirect_url: REDIRECT_URI,
    });
    assert(registration.status === 'APPROVED' && typeof registration.client_id === 'string', `registration ${registration.status}`);
    artifacts.clientId = String(registration.client_id);
    artifacts.clientSecret = String(registration.client_secret);
    const ob = OpenBanking.fromRegistration(registration, { logLevel: 'off' });
    const card = await ob.cards.create(CARD);
    assert(typeof card.card_id === 'string' && card.card_id.length > 0, 'the card has no card_id');
    artifacts.cardId = card.card_id;
    const { cards } = await ob.cards.list();
    assert(cards.some((listed) => listed.card_id === card.card_id), 'cards.list does not show the new card');
    registered = registration;
    return `register → fromRegistration → cards.create ${card.card_id} → cards.list`;
  });

  // The signature in base64: computed by this runtime (Web Crypto where node:crypto is not at
  // hand), accepted by the sandbox on the first attempt; the matrix recomputes it on Node.
  await check(checks, 'signature base64', async () => {
    assert(registered !== undefined, 'no registration (see the card check)');
    /** @type {Array<string | null>} */
    const signatures = [];
    /** @type {typeof fetch} */
    const recording = (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init);
      if (new URL(request.url).pathname.endsWith('/cards')) signatures.push(request.headers.get('signature'));
      return fetch(input, init);
    };
    const ob = OpenBanking.fromRegistration(registered, { logLevel: 'off', signatureEncoding: 'base64', fetch: recording, maxRetries: 0 });
    const key = 'runtime-matrix-base64';
    const card = await ob.cards.create(CARD, { idempotencyKey: key });
    assert(typeof card.card_id === 'string' && card.card_id.length > 0, 'the card has no card_id');
    assert(signatures.length === 1, `${signatures.length} attempts instead of 1`);
    const signature = signatures[0] ?? '';
    assert(/^[A-Za-z0-9+/]{43}=$/.test(signature), 'the signature header is not the base64 of a SHA-256 digest');
    artifacts.base64Key = key;
    artifacts.base64Signature = signature;
    return 'cards.create with signatureEncoding base64, accepted on the first attempt';
  });

  const secret = 'runtime-matrix-secret';
  artifacts.cipherSecret = secret;
  await check(checks, 'aesGcmCipher', async () => {
    artifacts.aesGcm = await roundTrip(aesGcmCipher(secret));
    return 'round trip; an altered value is a CipherError';
  });
  await check(checks, 'aesCbcCipher', async () => {
    artifacts.aesCbc = await roundTrip(aesCbcCipher(secret));
    return 'round trip; an altered value is a CipherError';
  });

  await check(checks, 'pkce', async () => {
    const request = await createAuthorizationRequest({
      authUrl: sandboxUrl,
      clientId: artifacts.clientId ?? 'runtime-matrix',
      redirectUri: REDIRECT_URI,
      scope: ['accounts', 'transactions'],
    });
    const url = new URL(request.url);
    assert(url.searchParams.get('code_challenge_method') === 'S256', 'no S256 challenge');
    assert(url.searchParams.get('code_challenge') === request.codeChallenge, 'the URL carries another challenge');
    const { code } = parseAuthorizationCallback(`${REDIRECT_URI}?code=abc&state=${encodeURIComponent(request.state)}`, { expectedState: request.state });
    assert(code === 'abc', 'parseAuthorizationCallback lost the code');
    artifacts.authorizeUrl = request.url;
    artifacts.codeVerifier = request.codeVerifier;
    return 'authorize URL with an S256 challenge; callback parsed';
  });

  return { checks, artifacts };
}
