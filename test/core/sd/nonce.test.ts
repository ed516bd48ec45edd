/**
 * Verifier nonces in-process, with an injected clock: self-authenticating nonces stay refused once
 * expired whatever happens to the store, are refused as replays once used, are not recognised
 * when altered or minted by another wallet, cost no store record to issue, and nonces of the older
 * stored format keep working for their remaining lifetime.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type RawVariables } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { createVerifierNonce, deriveSelectiveDisclosure, issueSelectiveDisclosureCredential, verifySelectiveDisclosure } from '../../../src/core/sd/index.js';
import { VERIFIER_NONCE_BYTES } from '../../../src/core/sd/nonce.js';
import { SD_NONCES_NAMESPACE, SD_VERIFIER_NAMESPACE, type StoredNonce } from '../../../src/core/sd/sdRecords.js';
import { ConfigError } from '../../../src/errors.js';
import { tempDir } from '../../helpers.js';
import { holdDirectly } from '../holder/support.js';

const FIXED_PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const START = new Date('2030-01-01T00:00:00.000Z');

const tmp = tempDir('vc-sd-nonce-');

type Vc = Record<string, unknown>;

interface Wallet {
  ctx: Context;
  setNow(iso: string): void;
  /** A derived proof of the wallet's credential bound to `nonce`. */
  prove(nonce: string): Promise<Vc>;
  nonceReason(vc: Vc, requireNonce?: boolean): Promise<string | undefined>;
}

let opened: Context[] = [];

async function wallet(name: string, vars: RawVariables = {}): Promise<Wallet> {
  let now = START;
  const ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE, ...vars }, path.join(tmp.dir, name)), now: () => now });
  opened.push(ctx);
  holdDirectly(ctx, await issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:erin' }));
  return {
    ctx,
    setNow: (iso) => (now = new Date(iso)),
    prove: async (nonce) => (await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['nationality'], nonce })).vc,
    nonceReason: async (vc, requireNonce = false) => {
      const result = await verifySelectiveDisclosure(ctx, { vc, requireNonce });
      return result.checks.find((check) => check.id === 'nonce' && !check.valid)?.reason;
    },
  };
}

/** Every record of the wallet's store, whatever its namespace. */
function countAllRecords(ctx: Context): number {
  const db = new Database(ctx.store.paths.database, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM records').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function flipByte(nonce: string, index: number): string {
  const bytes = Buffer.from(nonce, 'base64');
  bytes[index] = bytes[index]! ^ 0x01;
  return bytes.toString('base64');
}

afterAll(async () => {
  await Promise.all(opened.map((ctx) => ctx.close()));
  opened = [];
  tmp.cleanup();
});

describe('self-authenticating verifier nonces', () => {
  let w: Wallet;
  beforeAll(async () => {
    w = await wallet('main');
  });

  it('carry version, expiry, randomness and a MAC; issuing 1,000 of them adds no store record', () => {
    const first = createVerifierNonce(w.ctx, { ttlSeconds: 60 });
    const bytes = Buffer.from(first.nonce, 'base64');
    expect(bytes.length).toBe(VERIFIER_NONCE_BYTES);
    expect(bytes.length).toBe(1 + 8 + 16 + 16);
    expect(bytes[0]).toBe(1);
    expect(Number(bytes.readBigUInt64BE(1))).toBe(Date.parse(first.expiresAt));
    expect(first.expiresAt).toBe('2030-01-01T00:01:00.000Z');
    // The first nonce created the wallet's verifier secret; nothing else is ever written.
    expect(w.ctx.store.count(SD_VERIFIER_NAMESPACE)).toBe(1);
    const before = countAllRecords(w.ctx);
    const nonces = new Set<string>();
    for (let i = 0; i < 1000; i++) nonces.add(createVerifierNonce(w.ctx).nonce);
    expect(nonces.size).toBe(1000);
    expect(countAllRecords(w.ctx)).toBe(before);
    expect(w.ctx.store.count(SD_NONCES_NAMESPACE)).toBe(0);
  });

  it('an expired nonce is refused, also after many later nonces and after the used-nonce records were cleaned', async () => {
    w.setNow('2030-01-01T00:00:00.000Z');
    const expired = createVerifierNonce(w.ctx, { ttlSeconds: 60 });
    const usedThenExpired = createVerifierNonce(w.ctx, { ttlSeconds: 60 });
    const vcExpired = await w.prove(expired.nonce);
    const vcUsed = await w.prove(usedThenExpired.nonce);
    expect((await verifySelectiveDisclosure(w.ctx, { vc: vcUsed })).verified).toBe(true);
    expect(w.ctx.store.get<StoredNonce>(SD_NONCES_NAMESPACE, usedThenExpired.nonce)?.usedAt).toBe('2030-01-01T00:00:00.000Z');

    w.setNow('2030-01-01T00:01:00.000Z'); // both expire at this very instant
    expect(await w.nonceReason(vcExpired)).toBe('nonce expired at 2030-01-01T00:01:00.000Z');

    // The old pruning case: POST /nonce used to delete the unused expired nonce's record, after
    // which a proof bound to it passed as bound to an unknown (holder-chosen) nonce.
    for (let i = 0; i < 1000; i++) createVerifierNonce(w.ctx);
    expect(await w.nonceReason(vcExpired)).toMatch(/^nonce expired at /);
    expect(await w.nonceReason(vcExpired, true)).toMatch(/^nonce expired at /);

    // Using another nonce cleans the records of used nonces that expired.
    const later = createVerifierNonce(w.ctx, { ttlSeconds: 60 });
    expect((await verifySelectiveDisclosure(w.ctx, { vc: await w.prove(later.nonce) })).verified).toBe(true);
    expect(w.ctx.store.get(SD_NONCES_NAMESPACE, usedThenExpired.nonce)).toBeUndefined();
    expect(w.ctx.store.list(SD_NONCES_NAMESPACE).map((r) => r.key)).toEqual([later.nonce]);
    expect(await w.nonceReason(vcUsed)).toMatch(/^nonce expired at 2030-01-01T00:01:00.000Z/);

    // Even with the whole namespace wiped, the expiry inside the nonce refuses it.
    for (const { key } of w.ctx.store.list(SD_NONCES_NAMESPACE)) w.ctx.store.delete(SD_NONCES_NAMESPACE, key);
    w.setNow('2031-06-01T00:00:00.000Z');
    expect(await w.nonceReason(vcExpired)).toMatch(/^nonce expired at /);
    expect(await w.nonceReason(vcUsed)).toMatch(/^nonce expired at /);
  });

  it('a used nonce is refused as a replay, also when re-encoded', async () => {
    w.setNow('2030-02-01T00:00:00.000Z');
    const { nonce } = createVerifierNonce(w.ctx, { ttlSeconds: 600 });
    const vc = await w.prove(nonce);
    expect(await w.nonceReason(vc, true)).toBeUndefined();
    w.setNow('2030-02-01T00:01:00.000Z');
    expect(await w.nonceReason(vc)).toBe('nonce already used at 2030-02-01T00:00:00.000Z (replayed proof)');
    // The same bytes written without padding are the same nonce to the nonce check (records are
    // keyed by the canonical base64), whatever the proof check makes of the spelling.
    const unpadded = structuredClone(vc);
    (unpadded.proof as Vc).nonce = nonce.replace(/=+$/, '');
    expect((unpadded.proof as Vc).nonce).not.toBe(nonce);
    const result = await verifySelectiveDisclosure(w.ctx, { vc: unpadded });
    expect(result.verified).toBe(false);
    expect(result.checks.find((c) => c.id === 'nonce')?.reason).toMatch(/already used/);
  });

  it('two verifications of one proof at once: exactly one uses the nonce', async () => {
    w.setNow('2030-03-01T00:00:00.000Z');
    const vc = await w.prove(createVerifierNonce(w.ctx).nonce);
    const results = await Promise.all([verifySelectiveDisclosure(w.ctx, { vc }), verifySelectiveDisclosure(w.ctx, { vc })]);
    expect(results.map((r) => r.verified).sort()).toEqual([false, true]);
  });

  it('a nonce with a flipped byte is not recognised as ours: refused, naming why, when a nonce is required', async () => {
    w.setNow('2030-04-01T00:00:00.000Z');
    const { nonce } = createVerifierNonce(w.ctx, { ttlSeconds: 60 });
    // Flip a byte of the expiry (which would extend it), of the random part and of the MAC.
    for (const index of [8, 12, VERIFIER_NONCE_BYTES - 1]) {
      const altered = flipByte(nonce, index);
      const vc = await w.prove(altered);
      expect(await w.nonceReason(vc, true), String(index)).toMatch(/not issued by this verifier \(its authentication code does not match/);
      // Without requireNonce it counts as a nonce the holder chose: checked, not used up, not recorded.
      expect(await w.nonceReason(vc, false)).toBeUndefined();
      expect(w.ctx.store.get(SD_NONCES_NAMESPACE, altered)).toBeUndefined();
    }
    const holderChosen = await w.prove(randomBytes(32).toString('base64'));
    expect(await w.nonceReason(holderChosen, true)).toMatch(/not issued by this verifier \(it is not in the format of this verifier's nonces; get one with `vc verifier nonce`\)/);
  });

  it('another process on the same wallet recognises the nonce; another wallet does not', async () => {
    w.setNow('2030-05-01T00:00:00.000Z');
    const { nonce } = createVerifierNonce(w.ctx, { ttlSeconds: 60 });
    const vc = await w.prove(nonce);
    const sameWallet = new Context({ config: w.ctx.config, now: () => new Date('2030-05-01T00:00:30.000Z') });
    opened.push(sameWallet);
    expect((await verifySelectiveDisclosure(sameWallet, { vc, requireNonce: true })).verified).toBe(true);
    expect(await w.nonceReason(vc)).toMatch(/already used/);

    const other = await wallet('other');
    other.setNow('2030-05-01T00:00:00.000Z');
    createVerifierNonce(other.ctx);
    const foreign = createVerifierNonce(w.ctx, { ttlSeconds: 60 });
    expect(await other.nonceReason(await other.prove(foreign.nonce), true)).toMatch(/authentication code does not match: it was altered or issued by another verifier/);
    // A verifier that never issued a nonce has no secret, and verifying does not create one.
    const fresh = await wallet('fresh');
    expect(await fresh.nonceReason(await fresh.prove(foreign.nonce), true)).toMatch(/this verifier has not issued any nonce/);
    expect(fresh.ctx.store.count(SD_VERIFIER_NAMESPACE)).toBe(0);
  });
});

describe('nonces of the older stored format (32 random bytes)', () => {
  it('are checked by their record for their remaining lifetime, and stay refused once expired', async () => {
    const w = await wallet('legacy');
    const legacy = (expiresAt: string): string => {
      const nonce = randomBytes(32).toString('base64');
      w.ctx.store.put<StoredNonce>(SD_NONCES_NAMESPACE, nonce, { createdAt: START.toISOString(), expiresAt });
      return nonce;
    };
    const live = legacy('2030-01-01T00:10:00.000Z');
    const expiring = legacy('2030-01-01T00:01:00.000Z');
    const vcLive = await w.prove(live);
    const vcExpiring = await w.prove(expiring);
    expect(await w.nonceReason(vcLive, true)).toBeUndefined();
    expect(w.ctx.store.get<StoredNonce>(SD_NONCES_NAMESPACE, live)).toEqual({ createdAt: START.toISOString(), expiresAt: '2030-01-01T00:10:00.000Z', usedAt: START.toISOString() });
    expect(await w.nonceReason(vcLive)).toMatch(/already used/);

    w.setNow('2030-01-01T00:20:00.000Z');
    for (let i = 0; i < 100; i++) createVerifierNonce(w.ctx);
    // Using a new nonce cleans expired used records, but never records of the older format.
    expect((await verifySelectiveDisclosure(w.ctx, { vc: await w.prove(createVerifierNonce(w.ctx).nonce) })).verified).toBe(true);
    expect(w.ctx.store.get(SD_NONCES_NAMESPACE, live)).toBeDefined();
    expect(w.ctx.store.get(SD_NONCES_NAMESPACE, expiring)).toBeDefined();
    expect(await w.nonceReason(vcExpiring)).toBe('nonce expired at 2030-01-01T00:01:00.000Z');
    expect(await w.nonceReason(vcLive)).toMatch(/already used/);
  });
});

describe('VC_REQUIRE_NONCE', () => {
  it('true: every verification requires a nonce this verifier issued, whatever the caller asks', async () => {
    const w = await wallet('required', { VC_REQUIRE_NONCE: 'true' });
    expect(w.ctx.config.verifier.requireNonce).toBe(true);
    const holderChosen = await w.prove(randomBytes(32).toString('base64'));
    expect(await w.nonceReason(holderChosen, false)).toMatch(/not issued by this verifier/);
    expect((await verifySelectiveDisclosure(w.ctx, { vc: holderChosen })).verified).toBe(false);
    expect((await verifySelectiveDisclosure(w.ctx, { vc: await w.prove(createVerifierNonce(w.ctx).nonce) })).verified).toBe(true);
  });

  it('defaults to false, accepts true/false in any case, and refuses anything else naming the variable', () => {
    expect(parseConfig({}, '/h').verifier.requireNonce).toBe(false);
    expect(parseConfig({ VC_REQUIRE_NONCE: 'FALSE' }, '/h').verifier.requireNonce).toBe(false);
    expect(parseConfig({ VC_REQUIRE_NONCE: ' True ' }, '/h').verifier.requireNonce).toBe(true);
    for (const value of ['yes', '1', 'on']) {
      let error: unknown;
      try {
        parseConfig({ VC_REQUIRE_NONCE: value }, '/h');
      } catch (e) {
        error = e;
      }
      expect(error, value).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).exitCode).toBe(3);
      expect((error as Error).message).toBe(`invalid configuration: VC_REQUIRE_NONCE="${value}": expected true or false`);
    }
  });
});
