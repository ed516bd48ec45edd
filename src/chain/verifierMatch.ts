/**
 * Whether the Groth16 verifiers on the chain verify proofs of the circuits in use. A proof made
 * with development circuits (vc's own trusted setup) is refused by the official verifiers and the
 * reverse, with nothing but "proof is not valid" from the contract; this check says so before any
 * proof is made, which side is which, and the command that fixes it.
 *
 * A snarkjs Groth16 verifier carries its verification key as constants in its code (alpha, beta,
 * gamma, delta and every IC point), each pushed by a PUSH instruction of as few bytes as the number
 * needs (PUSH31 for one below 2^248, and so on). The check walks the on-chain code instruction by
 * instruction, collects the values it pushes, and requires every constant of the local key (but
 * tiny ones, see SMALL_CONSTANT) among them: a number that only appears inside other instructions,
 * or across them, does not count.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from '../context.js';
import { ConfigError } from '../errors.js';
import { iden3Artifact } from './artifacts.js';
import { getChain } from './chainClient.js';
import { requireContractKind } from './contractKind.js';
import { AUTH_METHOD_CONTRACTS } from './deployment/recipe.js';
import { codeAddressOf } from './proxySlots.js';
import { AUTH_V2_VERIFIER_CIRCUIT, ON_DEMAND_VERIFIER_CIRCUITS, VERIFIER_CIRCUITS, isAuthVerifierCircuit, officialVerifierArtifactName, type AuthVerifierCircuit, type VerifierCircuit } from './verifiers.js';
import { readContract } from './transactions.js';

const MTP_CIRCUIT = 'credentialAtomicQueryMTPV2OnChain';

/**
 * Constants below this bound are not required in the code: a real key's coordinates are random
 * field elements, so only the 0 and 1 of a point at infinity are this small, solc may produce such
 * a value without a push of its own (PUSH0, DUP of an earlier one), and it identifies no key.
 */
const SMALL_CONSTANT = 1n << 64n;

/** A decimal string of a verification key, as a number. */
function keyNumber(value: unknown, where: string, keyName: string): bigint {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new ConfigError(`${keyName} has no ${where} (not a Groth16 verification key)`);
  return BigInt(value);
}

/**
 * The numbers of a Groth16 verification key (snarkjs's verification_key.json, parsed) that
 * snarkjs's Solidity verifier holds as constants: alpha's x and y, both coordinates of beta,
 * gamma and delta (two numbers each), and x and y of every IC point.
 */
export function verificationKeyConstants(key: unknown, keyName = 'the verification key'): bigint[] {
  const vk = (typeof key === 'object' && key !== null ? key : {}) as Record<string, unknown>;
  const at = (name: string, ...indexes: number[]): bigint => {
    let value: unknown = vk[name];
    for (const i of indexes) value = Array.isArray(value) ? (value as unknown[])[i] : undefined;
    return keyNumber(value, `${name}${indexes.map((i) => `[${i}]`).join('')}`, keyName);
  };
  const constants = [at('vk_alpha_1', 0), at('vk_alpha_1', 1)];
  for (const name of ['vk_beta_2', 'vk_gamma_2', 'vk_delta_2']) {
    for (const i of [0, 1]) for (const j of [0, 1]) constants.push(at(name, i, j));
  }
  const ic = vk.IC;
  if (!Array.isArray(ic) || ic.length === 0) throw new ConfigError(`${keyName} has no IC (not a Groth16 verification key)`);
  for (let i = 0; i < ic.length; i++) constants.push(at('IC', i, 0), at('IC', i, 1));
  return constants;
}

/** The constants of the verification key in a file (`verification_key.json`). */
export function readVerificationKeyConstants(verificationKeyFile: string): bigint[] {
  return verificationKeyConstants(JSON.parse(readFileSync(verificationKeyFile, 'utf8')), verificationKeyFile);
}

/** The runtime code without solc's CBOR metadata (its length is in the last two bytes), when it has one. */
function withoutMetadata(code: Uint8Array): Uint8Array {
  if (code.length < 2) return code;
  const length = (code[code.length - 2]! << 8) | code[code.length - 1]!;
  const start = code.length - 2 - length;
  // A CBOR map (major type 5) opens solc's metadata.
  if (length === 0 || start < 0 || (code[start]! & 0xe0) !== 0xa0) return code;
  return code.subarray(0, start);
}

/**
 * Every value EVM code pushes as an immediate (PUSH0 to PUSH32), walking it instruction by
 * instruction from the start; `code` is hex, with or without 0x. Solc puts data (its metadata)
 * only after the instructions; the metadata is left out, and a push cut short by the end is not counted.
 */
export function pushedConstants(code: string): Set<bigint> {
  const hex = code.replace(/^0x/i, '');
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new Error('code is not hex bytes');
  const bytes = withoutMetadata(Uint8Array.from(Buffer.from(hex, 'hex')));
  const pushed = new Set<bigint>();
  for (let pc = 0; pc < bytes.length; pc++) {
    const op = bytes[pc]!;
    if (op === 0x5f) pushed.add(0n);
    if (op < 0x60 || op > 0x7f) continue;
    const size = op - 0x5f;
    if (pc + size >= bytes.length) break;
    let value = 0n;
    for (let i = 1; i <= size; i++) value = (value << 8n) | BigInt(bytes[pc + i]!);
    pushed.add(value);
    pc += size;
  }
  return pushed;
}

/**
 * Whether EVM runtime code (hex) holds a verification key (its constants, from
 * verificationKeyConstants): every constant that can identify a key is pushed by the code. A
 * "key" without any such constant is held by no code.
 */
export function codeHoldsVerificationKey(code: string, constants: readonly bigint[]): boolean {
  const required = constants.filter((c) => c >= SMALL_CONSTANT);
  if (required.length === 0) return false;
  const pushed = pushedConstants(code);
  return required.every((c) => pushed.has(c));
}

/** The verifier contract the State, the MTP validator or the V3 validator calls for a circuit. */
async function onChainVerifier(ctx: Context, circuit: VerifierCircuit): Promise<string> {
  const chain = await getChain(ctx);
  if (circuit === 'stateTransition') {
    return readContract<string>(ctx, { address: chain.addresses.state, abi: iden3Artifact('State').abi as never, method: 'getVerifier', args: [] }, 'read the State verifier');
  }
  if (circuit === MTP_CIRCUIT) {
    return readContract<string>(
      ctx,
      { address: chain.addresses.mtpValidator, abi: iden3Artifact('CredentialAtomicQueryMTPV2Validator').abi as never, method: 'getVerifierByCircuitId', args: [MTP_CIRCUIT] },
      'read the MTP validator verifier',
    );
  }
  if (isAuthVerifierCircuit(circuit)) {
    // What submitResponse calls: the validator of the UniversalVerifier's method of that name, and its verifier.
    const universalVerifier = iden3Artifact('UniversalVerifier').abi as never;
    const exists = await readContract<boolean>(ctx, { address: chain.addresses.universalVerifier, abi: universalVerifier, method: 'authMethodExists', args: [circuit] }, `read the ${circuit} auth method`);
    if (!exists) {
      throw new ConfigError(
        `the UniversalVerifier ${chain.addresses.universalVerifier} on chain ${chain.chainId} has no ${circuit} auth method: proofs cannot be submitted with it (${
          ctx.config.chain.stateContractAddress === undefined ? 'the next `vc chain deploy` adds it' : 'whoever deployed these contracts adds it with `vc chain deploy`'
        }; or ${EMBEDDED_AUTH_ADVICE})`,
        { field: circuit },
      );
    }
    const method = await authMethodBinding(ctx, circuit);
    if (!method.isActive) {
      // submitResponse reverts AuthMethodIsNotActive: refused before any proof.
      throw new ConfigError(
        `the UniversalVerifier ${chain.addresses.universalVerifier} on chain ${chain.chainId} has its ${circuit} auth method disabled (its owner's disableAuthMethod): proofs cannot be submitted with it (its owner enables it again with enableAuthMethod; or ${EMBEDDED_AUTH_ADVICE})`,
        { field: circuit },
      );
    }
    return readContract<string>(
      ctx,
      { address: method.validator, abi: iden3Artifact(AUTH_METHOD_CONTRACTS[circuit].artifact).abi as never, method: 'getVerifierByCircuitId', args: [circuit] },
      `read the ${AUTH_METHOD_CONTRACTS[circuit].artifact}'s verifier`,
    );
  }
  const validator = chain.addresses.v3Validator;
  if (validator === undefined) {
    throw new ConfigError(`chain ${chain.chainId} no CredentialAtomicQueryV3StableValidator: set V3_ADDRESS (the deploying party's \`vc chain env\` gives it) or run \`vc chain deploy\` there`, {
      field: circuit,
    });
  }
  await requireContractKind(ctx, 'v3Validator', validator, chain.addresses);
  return readContract<string>(
    ctx,
    { address: validator, abi: iden3Artifact('CredentialAtomicQueryV3StableValidator').abi as never, method: 'getVerifierByCircuitId', args: [circuit] },
    `read the V3 validator's ${circuit} verifier`,
  );
}

/** The way around an auth verifier no deployment fixes, as every command that submits with a separate auth proof can take it. */
const EMBEDDED_AUTH_ADVICE =
  'submit with embeddedAuth instead (`vc holder prove-submit`\'s default; for a contract-invoke-request `vc holder respond` answers, the request\'s accept profiles decide: one accepting application/iden3comm-plain-json gets embedded auth)';

/** The validator the UniversalVerifier's auth method `circuit` is bound to, and whether the method is active. */
async function authMethodBinding(ctx: Context, circuit: AuthVerifierCircuit): Promise<{ validator: string; isActive: boolean }> {
  const chain = await getChain(ctx);
  return readContract<{ validator: string; isActive: boolean }>(
    ctx,
    { address: chain.addresses.universalVerifier, abi: iden3Artifact('UniversalVerifier').abi as never, method: 'getAuthMethod', args: [circuit] },
    `read the ${circuit} auth method`,
  );
}

/**
 * The fix for a mismatched authV2 verifier. The UniversalVerifier's method stays bound to the
 * validator it was first given (UniversalVerifier 2.3.0 cannot repoint a method): when that is
 * another validator than the one this deployment upgrades (an earlier vc bound it), or when this
 * home uses another party's deployment (no address book: what the binding holds is all it can
 * read), deploying again is no fix; embedded auth or new contracts are. The authV3 methods are
 * bound only by a vc that puts their verifier behind a proxy, which its deployer's `vc chain
 * deploy` upgrades in place (the binding and the requests kept): `fix` says so (`authV3Fix`).
 */
async function authFix(ctx: Context, circuit: VerifierCircuit, fix: string, verifier: string): Promise<string> {
  if (!isAuthVerifierCircuit(circuit) || circuit !== AUTH_V2_VERIFIER_CIRCUIT) return fix;
  const chain = await getChain(ctx);
  const own = chain.addresses.all[AUTH_METHOD_CONTRACTS[circuit].validator];
  const theirs = ctx.config.chain.stateContractAddress !== undefined;
  const method = await authMethodBinding(ctx, circuit);
  const binding = `the UniversalVerifier ${chain.addresses.universalVerifier} binds its ${circuit} method to the validator ${method.validator}`;
  if (own === undefined && theirs) {
    return `${binding} (its verifier ${verifier}), which UniversalVerifier 2.3.0 cannot repoint: ${EMBEDDED_AUTH_ADVICE}, or whoever deployed these contracts deploys new ones with \`vc chain deploy --force\` and gives you that deployment's \`vc chain env\` (requests registered on this UniversalVerifier stay on it)`;
  }
  if (own === undefined || method.validator.toLowerCase() === own.toLowerCase()) return fix;
  return `${binding} (deployed by an earlier vc), which UniversalVerifier 2.3.0 cannot repoint: ${EMBEDDED_AUTH_ADVICE}, or deploy new contracts with \`vc chain deploy --force\` (requests registered on this UniversalVerifier stay on it)`;
}

/**
 * Refuses (ConfigError, exit 3) when a verifier on the chain does not hold the verification key
 * of a local circuit in use (`<dir>/<circuit>/verification_key.json`): the default ones, and the
 * V3 circuits named in `circuits.ids` (those the set in use holds).
 */
export async function checkVerifiersMatchCircuits(
  ctx: Context,
  circuits: { dir: string; development: boolean; ids?: readonly string[] },
  only?: readonly VerifierCircuit[],
): Promise<void> {
  const chain = await getChain(ctx);
  const inUse = VERIFIER_CIRCUITS.filter((circuit) => (only === undefined || only.includes(circuit)) && (!ON_DEMAND_VERIFIER_CIRCUITS.includes(circuit) || circuits.ids?.includes(circuit) === true));
  for (const circuit of inUse) {
    // An auth verifier sits behind a proxy (upgraded in place when it changes): its implementation holds the key.
    const called = await onChainVerifier(ctx, circuit);
    const address = await codeAddressOf(chain.provider, called, `chain ${chain.chainId}`);
    const code = (await chain.provider.getCode(address)).toLowerCase().replace(/^0x/, '');
    const constants = readVerificationKeyConstants(path.join(circuits.dir, circuit, 'verification_key.json'));
    if (codeHoldsVerificationKey(code, constants)) continue;
    const official = code.length > 0 && iden3Artifact(officialVerifierArtifactName(circuit)).bytecode.toLowerCase().includes(code);
    const where = `the ${circuit} verifier on chain ${chain.chainId} (${address})`;
    const local = `the circuits in use (${circuits.dir})`;
    // A party using someone else's deployment (its addresses configured) cannot fix it by deploying.
    const theirs = ctx.config.chain.stateContractAddress !== undefined;
    const redeploy = circuits.development ? '`vc chain deploy` (development verifiers, the default on a development chain)' : '`vc chain deploy --official-verifiers`';
    const orOfficial = circuits.development ? ', or use the official circuits (`vc circuits fetch`, CIRCUITS_PATH)' : '';
    const fix = theirs
      ? isAuthVerifierCircuit(circuit) && circuit !== AUTH_V2_VERIFIER_CIRCUIT
        ? // An authV3 method's verifier sits behind the deployer's proxy: upgraded in place, the method's binding, the requests and this party's `vc chain env` kept.
          `whoever deployed these contracts runs ${redeploy}: the ${circuit} verifier behind its proxy (${called}) is upgraded in place, the UniversalVerifier's ${circuit} method, its requests and your \`vc chain env\` kept${orOfficial}; or ${EMBEDDED_AUTH_ADVICE}`
        : `whoever deployed these contracts runs ${redeploy} and hands out a fresh \`vc chain env\` (the ${circuit === 'stateTransition' ? 'State verifier' : circuit === MTP_CIRCUIT ? "MTP validator's address" : isAuthVerifierCircuit(circuit) ? `${circuit} verifier, upgraded in place,` : "V3 validator's address"} changes)`
      : circuits.development
        ? `deploy their verifiers with ${redeploy}, or use the official circuits (\`vc circuits fetch\`, CIRCUITS_PATH)`
        : `deploy the official verifiers with ${redeploy}`;
    const message = circuits.development
      ? `${where} is ${official ? 'the official one' : 'not the verifier of these circuits'}, but ${local} are development builds (vc's own trusted setup): every proof would be refused; ${await authFix(ctx, circuit, fix, called)}`
      : `${where} is ${code.length === 0 ? 'missing' : official ? 'an official verifier of other circuits' : 'a development build'}, but ${local} are official: every proof would be refused; ${await authFix(ctx, circuit, fix, called)}`;
    throw new ConfigError(message, { field: circuit });
  }
}
