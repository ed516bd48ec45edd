/**
 * The check that the chain's Groth16 verifiers hold the verification keys of the circuits in use
 * (src/chain/verifierMatch.ts): its core on the code of verifiers compiled here from crafted keys
 * (constants of every byte length) and on the official verifiers of @iden3/contracts, then against
 * the embedded chain with the development verifiers.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iden3Artifact } from '../../src/chain/artifacts.js';
import { deployContracts } from '../../src/chain/deployment/deployContracts.js';
import { stopLocalNode } from '../../src/chain/node/lifecycle.js';
import { checkVerifiersMatchCircuits, codeHoldsVerificationKey, pushedConstants, readVerificationKeyConstants, verificationKeyConstants } from '../../src/chain/verifierMatch.js';
import { compileVerifierCode, snarkjsPackageDir, verifierTemplate, wrapVerifierSource } from '../../src/circuits/solidity.js';
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

/** Byte lengths of the crafted constants: PUSH29 to PUSH32 (the bug: anything below 32 was missed). */
const LENGTHS = [29, 30, 31, 32];
const N_PUBLIC = 3;
/** alpha (2 numbers), beta, gamma, delta (4 each), IC0..IC3 (2 each). */
const CONSTANTS = 14 + 2 * (N_PUBLIC + 1);

/** A random-looking number of exactly `bytes` bytes (below the BN254 base field when 32), from a label. */
function numberOfLength(bytes: number, label: string): bigint {
  const digest = Buffer.concat([createHash('sha256').update(`${label}/0`).digest(), createHash('sha256').update(`${label}/1`).digest()]).subarray(0, bytes);
  // The base field's top byte is 0x30.
  digest[0] = bytes === 32 ? 1 + (digest[0]! % 0x2f) : 1 + (digest[0]! % 0xff);
  return BigInt(`0x${digest.toString('hex')}`);
}

function byteLength(value: bigint): number {
  return Math.ceil(value.toString(16).length / 2);
}

/** A snarkjs verification_key.json with these constants, in verificationKeyConstants's order. */
function keyOf(constants: readonly bigint[]): Record<string, unknown> {
  const c = constants.map((v) => v.toString());
  const g2 = (at: number): string[][] => [
    [c[at]!, c[at + 1]!],
    [c[at + 2]!, c[at + 3]!],
    ['1', '0'],
  ];
  return {
    protocol: 'groth16',
    curve: 'bn128',
    nPublic: N_PUBLIC,
    vk_alpha_1: [c[0]!, c[1]!, '1'],
    vk_beta_2: g2(2),
    vk_gamma_2: g2(6),
    vk_delta_2: g2(10),
    IC: Array.from({ length: N_PUBLIC + 1 }, (_, i) => [c[14 + 2 * i]!, c[15 + 2 * i]!, '1']),
  };
}

/** Key k gives constant i the length LENGTHS[(i + k) % 4]: over the four keys, every constant takes every length. */
const crafted = LENGTHS.map((_, k) => Array.from({ length: CONSTANTS }, (_, i) => numberOfLength(LENGTHS[(i + k) % LENGTHS.length]!, `key ${k} constant ${i}`)));

/** Runtime code of the verifier vc generates and compiles for each crafted key. */
const codes: string[] = [];

beforeAll(async () => {
  // exportSolidityVerifier renders snarkjs's template with EJS and the key; the same, from a key file.
  const ejs = createRequire(path.join(snarkjsPackageDir(), 'package.json'))('ejs') as { render(template: string, data: object): string };
  const template = await verifierTemplate();
  for (const [k, constants] of crafted.entries()) {
    const file = path.join(tmp.dir, `key${k}.json`);
    writeFileSync(file, `${JSON.stringify(keyOf(constants), null, 1)}\n`);
    const generated = ejs.render(template, JSON.parse(readFileSync(file, 'utf8')) as object);
    const { source, contractName } = wrapVerifierSource('stateTransition', generated, N_PUBLIC);
    codes.push(compileVerifierCode(source, contractName).deployedBytecode);
  }
}, 120_000);

describe('a verifier\'s code against a verification key', () => {
  it('reads every constant the verifier embeds from a key file, in order', () => {
    expect(crafted.flat().map(byteLength).filter((n) => !LENGTHS.includes(n))).toEqual([]);
    for (const [k, constants] of crafted.entries()) {
      expect(readVerificationKeyConstants(path.join(tmp.dir, `key${k}.json`))).toEqual(constants);
      for (const [i, value] of constants.entries()) expect(byteLength(value)).toBe(LENGTHS[(i + k) % LENGTHS.length]);
    }
  });

  it('accepts the code of each key, whose constants are 29, 30, 31 and 32 bytes long, where the padded search missed', () => {
    for (const [k, constants] of crafted.entries()) {
      const code = codes[k]!;
      const pushed = pushedConstants(code);
      for (const value of constants) expect(pushed.has(value)).toBe(true);
      expect(codeHoldsVerificationKey(code, readVerificationKeyConstants(path.join(tmp.dir, `key${k}.json`)))).toBe(true);
      // The former check: alpha x padded to 64 hex digits, anywhere in the code.
      const alphaX = constants[0]!;
      expect(code.includes(alphaX.toString(16).padStart(64, '0'))).toBe(byteLength(alphaX) === 32);
    }
  });

  it('refuses the code of another key, and of a key that differs in one constant only', () => {
    for (const [k, code] of codes.entries()) {
      expect(codeHoldsVerificationKey(code, crafted[(k + 1) % crafted.length]!)).toBe(false);
      for (let i = 0; i < CONSTANTS; i++) {
        const other = [...crafted[k]!];
        other[i] = numberOfLength(byteLength(other[i]!), `key ${k} constant ${i}, changed`);
        expect(codeHoldsVerificationKey(code, verificationKeyConstants(keyOf(other))), `key ${k}, constant ${i}`).toBe(false);
      }
    }
  });

  it('refuses a key whose number merely appears in the code, at an odd digit or across instructions', () => {
    const code = codes[0]!.replace(/^0x/, '');
    const pushed = pushedConstants(code);
    // Where alpha x's push starts: its opcode, then its immediate.
    const alphaX = crafted[0]![0]!;
    const immediate = alphaX.toString(16).padStart(byteLength(alphaX) * 2, '0');
    const at = code.indexOf(immediate) - 2;
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at % 2).toBe(0);
    for (const [what, start] of [
      ['at an odd hex digit', at + 3],
      ['across the push and the instructions after it', at + 4],
    ] as const) {
      const window = code.slice(start, start + 64);
      const value = BigInt(`0x${window}`);
      expect(pushed.has(value), what).toBe(false);
      const impostor = [value, ...crafted[0]!.slice(1)];
      // The former check accepted this key: its alpha x, padded, is in the code.
      expect(code.includes(value.toString(16).padStart(64, '0')), what).toBe(true);
      expect(codeHoldsVerificationKey(code, impostor), what).toBe(false);
    }
  });

  it('walks instructions: PUSH0 to PUSH32 immediates only, not what they hold, nor a cut push or the metadata', () => {
    const push = (bytes: string): string => (bytes.length === 0 ? '5f' : (0x5f + bytes.length / 2).toString(16) + bytes);
    const hidden = `7f${'11'.repeat(32)}`; // a PUSH32 inside the immediate of another
    const code = [
      push(''),
      push('ff'),
      '01', // ADD
      push(hidden.slice(0, 64)),
      push('ab'.repeat(31)),
      '00', // STOP
      // solc's metadata: a CBOR map, then its length; a push in it (PUSH1 0x77) does not count.
      'a16077',
      '0003',
    ].join('');
    expect([...pushedConstants(`0x${code}`)]).toEqual([0n, 0xffn, BigInt(`0x${hidden.slice(0, 64)}`), BigInt(`0x${'ab'.repeat(31)}`)]);
    // A push cut short by the end of the code pushes nothing.
    expect([...pushedConstants('6001' + '7f' + '22'.repeat(31))]).toEqual([1n]);
  });

  it('accepts the official verifiers of @iden3/contracts with their keys, and refuses them with the other key', () => {
    const contracts = path.dirname(createRequire(import.meta.url).resolve('@iden3/contracts/package.json'));
    /** The verification key a verifier source was rendered from (the template's constant names). */
    const keyOfSource = (name: string): bigint[] => {
      const source = readFileSync(path.join(contracts, 'lib', 'groth16-verifiers', `${name}.sol`), 'utf8');
      const value = Object.fromEntries([...source.matchAll(/uint256 constant (\w+)\s*=\s*(\d+);/g)].map((m) => [m[1]!, m[2]!]));
      const g2 = (p: string): string[][] => [
        [value[`${p}x2`]!, value[`${p}x1`]!],
        [value[`${p}y2`]!, value[`${p}y1`]!],
      ];
      const ic: string[][] = [];
      for (let i = 0; value[`IC${i}x`] !== undefined; i++) ic.push([value[`IC${i}x`]!, value[`IC${i}y`]!]);
      return verificationKeyConstants({ vk_alpha_1: [value.alphax, value.alphay], vk_beta_2: g2('beta'), vk_gamma_2: g2('gamma'), vk_delta_2: g2('delta'), IC: ic });
    };
    const runtime = (artifact: string): string =>
      (JSON.parse(readFileSync(path.join(contracts, 'build', 'contracts', `${artifact}.json`), 'utf8')) as { deployedBytecode: string }).deployedBytecode;
    const state = keyOfSource('Groth16VerifierStateTransition');
    const mtp = keyOfSource('Groth16VerifierMTP');
    expect(state).toHaveLength(14 + 2 * 5);
    expect(mtp).toHaveLength(14 + 2 * 12);
    // One of the official stateTransition key's constants (IC3 x) is 31 bytes long.
    expect(state.map(byteLength)).toContain(31);
    expect(codeHoldsVerificationKey(runtime('Groth16VerifierStateTransition'), state)).toBe(true);
    expect(codeHoldsVerificationKey(runtime('Groth16VerifierMTPWrapper'), mtp)).toBe(true);
    expect(codeHoldsVerificationKey(runtime('Groth16VerifierStateTransition'), mtp)).toBe(false);
    expect(codeHoldsVerificationKey(runtime('Groth16VerifierMTPWrapper'), state)).toBe(false);
    expect(codeHoldsVerificationKey(runtime('Groth16VerifierStateTransition'), crafted[0]!)).toBe(false);
    // The V3 validator's verifiers: 14 public signals each, and each size holds its own key only.
    const v3 = keyOfSource('Groth16VerifierV3Stable');
    const v3Small = keyOfSource('Groth16VerifierV3Stable_16_16_64_16_32');
    expect(v3).toHaveLength(14 + 2 * 15);
    expect(codeHoldsVerificationKey(runtime('Groth16VerifierV3StableWrapper'), v3)).toBe(true);
    expect(codeHoldsVerificationKey(runtime('Groth16VerifierV3Stable_16_16_64_16_32Wrapper'), v3Small)).toBe(true);
    expect(codeHoldsVerificationKey(runtime('Groth16VerifierV3StableWrapper'), v3Small)).toBe(false);
    expect(codeHoldsVerificationKey(runtime('Groth16VerifierV3Stable_16_16_64_16_32Wrapper'), mtp)).toBe(false);
    // The AuthV2Validator's: 3 public signals (userID, challenge, gistRoot).
    const authV2 = keyOfSource('Groth16VerifierAuthV2');
    expect(authV2).toHaveLength(14 + 2 * 4);
    expect(codeHoldsVerificationKey(runtime('Groth16VerifierAuthV2Wrapper'), authV2)).toBe(true);
    expect(codeHoldsVerificationKey(runtime('Groth16VerifierAuthV2Wrapper'), mtp)).toBe(false);
    expect(codeHoldsVerificationKey(runtime('Groth16VerifierMTPWrapper'), authV2)).toBe(false);
  });
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

    // The V3 circuits in use are checked against the V3 validator's verifiers: the 16-16-64-16-32
    // size's development verifier is deployed with the first V3 use; the full size's (official,
    // or development when the cache holds that build) does not hold another key given for it.
    const v3Dir = await proofCircuitsDir(ctx, 'v3');
    const small = 'credentialAtomicQueryV3OnChain-16-16-64-16-32';
    await expect(checkVerifiersMatchCircuits(ctx, { dir: v3Dir, development: true, ids: [small] })).resolves.toBeUndefined();
    const full = path.join(tmp.dir, 'v3-circuits');
    for (const circuit of ['stateTransition', 'credentialAtomicQueryMTPV2OnChain', small]) cpSync(path.join(v3Dir, circuit), path.join(full, circuit), { recursive: true, dereference: true });
    mkdirSync(path.join(full, 'credentialAtomicQueryV3OnChain'));
    cpSync(path.join(v3Dir, small, 'verification_key.json'), path.join(full, 'credentialAtomicQueryV3OnChain', 'verification_key.json'));
    const v3Error = await checkVerifiersMatchCircuits(ctx, { dir: full, development: true, ids: [small, 'credentialAtomicQueryV3OnChain'] }).catch((e: unknown) => e);
    expect(v3Error).toBeInstanceOf(ConfigError);
    expect((v3Error as ConfigError).field).toBe('credentialAtomicQueryV3OnChain');
    expect((v3Error as Error).message).toMatch(/the credentialAtomicQueryV3OnChain verifier on chain 152 \(0x[0-9a-fA-F]{40}\) is (the official one|not the verifier of these circuits), but the circuits in use .* are development builds/);

    // authV2 (in use once built): the verifier behind the UniversalVerifier's authV2 method, read
    // through its proxy; the development one is deployed with the first use that needs it.
    const authDir = await proofCircuitsDir(ctx, 'v3auth');
    await expect(checkVerifiersMatchCircuits(ctx, { dir: authDir, development: true, ids: ['authV2'] }, ['authV2'])).resolves.toBeUndefined();
    // Not in use (not among the ids), it is not checked.
    await expect(checkVerifiersMatchCircuits(ctx, { dir: other, development: false, ids: [] }, ['authV2'])).resolves.toBeUndefined();
    // The official verifier swapped in behind the proxy: refused for the development circuit, naming it.
    const official = iden3Artifact('Groth16VerifierAuthV2Wrapper');
    await deployContracts(ctx, { verifiers: { authV2: { abi: official.abi, bytecode: official.bytecode } } });
    const authError = await checkVerifiersMatchCircuits(ctx, { dir: authDir, development: true, ids: ['authV2'] }).catch((e: unknown) => e);
    expect(authError).toBeInstanceOf(ConfigError);
    expect((authError as ConfigError).field).toBe('authV2');
    expect((authError as Error).message).toMatch(/^the authV2 verifier on chain 152 \(0x[0-9a-fA-F]{40}\) is the official one, but the circuits in use .* are development builds \(vc's own trusted setup\): every proof would be refused; deploy their verifiers with `vc chain deploy`/);
  }, 900_000);
});
