/**
 * The check that the chain's Groth16 verifiers hold the verification keys of the circuits in use
 * (src/chain/verifierMatch.ts), against the embedded chain with the development verifiers.
 */
import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopLocalNode } from '../../src/chain/node/lifecycle.js';
import { checkVerifiersMatchCircuits } from '../../src/chain/verifierMatch.js';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { ConfigError } from '../../src/errors.js';
import { proofCircuitsDir } from '../../src/iden3/wallet.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir('vc-verifier-match-');
const ctx = new Context({ config: parseConfig({}, path.join(tmp.dir, 'home')) });

afterAll(async () => {
  await stopLocalNode(ctx, { persist: false }).catch(() => undefined);
  await ctx.close();
  tmp.cleanup();
});

describe('on-chain verifiers against the circuits in use', () => {
  it('passes for the circuits whose verifiers are deployed, and refuses another key naming both sides and the fix', async () => {
    // The embedded chain gets the development circuits' verifiers.
    const dir = await proofCircuitsDir(ctx);
    await expect(checkVerifiersMatchCircuits(ctx, { dir, development: true })).resolves.toBeUndefined();

    // Circuits said to be official, whose stateTransition key is another real key (the MTP circuit's).
    const other = path.join(tmp.dir, 'other-circuits');
    for (const circuit of ['stateTransition', 'credentialAtomicQueryMTPV2OnChain']) mkdirSync(path.join(other, circuit), { recursive: true });
    cpSync(path.join(dir, 'credentialAtomicQueryMTPV2OnChain', 'verification_key.json'), path.join(other, 'stateTransition', 'verification_key.json'));
    cpSync(path.join(dir, 'credentialAtomicQueryMTPV2OnChain', 'verification_key.json'), path.join(other, 'credentialAtomicQueryMTPV2OnChain', 'verification_key.json'));
    const error = await checkVerifiersMatchCircuits(ctx, { dir: other, development: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe('stateTransition');
    expect((error as Error).message).toMatch(/the stateTransition verifier on chain 152 \(0x[0-9a-fA-F]{40}\) is a development build, but the circuits in use \(.+\) are official/);
    expect((error as Error).message).toMatch(/vc chain deploy --official-verifiers/);
  }, 900_000);
});
