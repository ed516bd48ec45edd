/**
 * Whether the Groth16 verifiers on the chain verify proofs of the circuits in use. A proof made
 * with development circuits (vc's own trusted setup) is refused by the official verifiers and the
 * reverse, with nothing but "proof is not valid" from the contract; this check says so before any
 * proof is made, which side is which, and the command that fixes it.
 *
 * A snarkjs Groth16 verifier carries its verification key as constants in its code: the on-chain
 * code contains the local key's alpha point exactly when the key is the same.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from '../context.js';
import { ConfigError } from '../errors.js';
import { iden3Artifact } from './artifacts.js';
import { getChain } from './chainClient.js';
import { VERIFIER_CIRCUITS, officialVerifierArtifactName, type VerifierCircuit } from './verifiers.js';
import { readContract } from './transactions.js';

const MTP_CIRCUIT = 'credentialAtomicQueryMTPV2OnChain';

/** The alpha point's x coordinate of a verification key, as the 64 hex digits a verifier's code holds. */
export function verificationKeyMarker(verificationKeyFile: string): string {
  const key = JSON.parse(readFileSync(verificationKeyFile, 'utf8')) as { vk_alpha_1?: unknown[] };
  const x = key.vk_alpha_1?.[0];
  if (typeof x !== 'string' || !/^\d+$/.test(x)) throw new ConfigError(`${verificationKeyFile} has no vk_alpha_1 (not a Groth16 verification key)`);
  return BigInt(x).toString(16).padStart(64, '0');
}

/** The verifier contracts the State and the MTP validator call. */
async function onChainVerifiers(ctx: Context): Promise<Record<VerifierCircuit, string>> {
  const chain = await getChain(ctx);
  const state = await readContract<string>(ctx, { address: chain.addresses.state, abi: iden3Artifact('State').abi as never, method: 'getVerifier', args: [] }, 'read the State verifier');
  const mtp = await readContract<string>(
    ctx,
    { address: chain.addresses.mtpValidator, abi: iden3Artifact('CredentialAtomicQueryMTPV2Validator').abi as never, method: 'getVerifierByCircuitId', args: [MTP_CIRCUIT] },
    'read the MTP validator verifier',
  );
  return { stateTransition: state, credentialAtomicQueryMTPV2OnChain: mtp };
}

/**
 * Refuses (ConfigError, exit 3) when a verifier on the chain does not hold the verification key
 * of the local circuit in `circuitsDir` (`<dir>/<circuit>/verification_key.json`).
 */
export async function checkVerifiersMatchCircuits(ctx: Context, circuits: { dir: string; development: boolean }): Promise<void> {
  const chain = await getChain(ctx);
  const addresses = await onChainVerifiers(ctx);
  for (const circuit of VERIFIER_CIRCUITS) {
    const code = (await chain.provider.getCode(addresses[circuit])).toLowerCase().replace(/^0x/, '');
    const marker = verificationKeyMarker(path.join(circuits.dir, circuit, 'verification_key.json'));
    if (code.includes(marker)) continue;
    const official = code.length > 0 && iden3Artifact(officialVerifierArtifactName(circuit)).bytecode.toLowerCase().includes(code);
    const where = `the ${circuit} verifier on chain ${chain.chainId} (${addresses[circuit]})`;
    const local = `the circuits in use (${circuits.dir})`;
    // A party using someone else's deployment (its addresses configured) cannot fix it by deploying.
    const theirs = ctx.config.chain.stateContractAddress !== undefined;
    const redeploy = circuits.development ? '`vc chain deploy` (development verifiers, the default on a development chain)' : '`vc chain deploy --official-verifiers`';
    const fix = theirs
      ? `whoever deployed these contracts runs ${redeploy} and hands out a fresh \`vc chain env\` (the MTP validator's address changes)`
      : circuits.development
        ? `deploy their verifiers with ${redeploy}, or use the official circuits (\`vc circuits fetch\`, CIRCUITS_PATH)`
        : `deploy the official verifiers with ${redeploy}`;
    const message = circuits.development
      ? `${where} is ${official ? 'the official one' : 'not the verifier of these circuits'}, but ${local} are development builds (vc's own trusted setup): every proof would be refused; ${fix}`
      : `${where} is ${code.length === 0 ? 'missing' : official ? 'an official verifier of other circuits' : 'a development build'}, but ${local} are official: every proof would be refused; ${fix}`;
    throw new ConfigError(message, { field: circuit });
  }
}
