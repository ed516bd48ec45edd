/**
 * The pluggable Groth16 verifiers: the official ones shipped in @iden3/contracts by default, or
 * "dev" verifiers produced by our circuit build (snarkjs Solidity compiled with solc), remembered
 * per wallet (store namespace 'chain.verifiers') for later deployments.
 */
import type { InterfaceAbi } from 'ethers';
import type { Context } from '../context.js';
import { InputError, describeError } from '../errors.js';
import { type Artifact, bytecodeHash, checkBytecode, iden3Artifact } from './artifacts.js';

/** Store namespace of the dev verifier artifacts provided by the circuit build (key: circuit). */
export const DEV_VERIFIERS_NS = 'chain.verifiers';

/** The V3 on-chain query circuits the V3 validator has a verifier for (by the circuit id the proof's metadata names). */
export const V3_VERIFIER_CIRCUITS = ['credentialAtomicQueryV3OnChain-16-16-64-16-32', 'credentialAtomicQueryV3OnChain'] as const;
export type V3VerifierCircuit = (typeof V3_VERIFIER_CIRCUITS)[number];

/** The auth circuit of the UniversalVerifier's `authV2` auth method (AuthV2Validator's verifier). */
export const AUTH_V2_VERIFIER_CIRCUIT = 'authV2';
/**
 * The auth circuits of the UniversalVerifier's separate-proof auth methods: each method is named
 * as its circuit (authV2, authV3, authV3-8-32, the js-sdk's AuthMethod), verified by its own
 * validator (AuthV2Validator, AuthV3Validator, AuthV3_8_32Validator) through a verifier of its own.
 */
export const AUTH_VERIFIER_CIRCUITS = [AUTH_V2_VERIFIER_CIRCUIT, 'authV3', 'authV3-8-32'] as const;
export type AuthVerifierCircuit = (typeof AUTH_VERIFIER_CIRCUITS)[number];
/** Whether a text names an auth circuit with an on-chain auth method. */
export function isAuthVerifierCircuit(id: string): id is AuthVerifierCircuit {
  return (AUTH_VERIFIER_CIRCUITS as readonly string[]).includes(id);
}

/** Circuits whose Groth16 verifier contract is pluggable. */
export type VerifierCircuit = 'stateTransition' | 'credentialAtomicQueryMTPV2OnChain' | V3VerifierCircuit | AuthVerifierCircuit;
export const VERIFIER_CIRCUITS: readonly VerifierCircuit[] = ['stateTransition', 'credentialAtomicQueryMTPV2OnChain', ...V3_VERIFIER_CIRCUITS, ...AUTH_VERIFIER_CIRCUITS];
/** The verifier circuits built on demand only (in use when the circuit set holds them). */
export const ON_DEMAND_VERIFIER_CIRCUITS: readonly VerifierCircuit[] = [...V3_VERIFIER_CIRCUITS, ...AUTH_VERIFIER_CIRCUITS];

/** A compiled Groth16 verifier contract. */
export interface VerifierArtifact {
  abi: unknown[];
  bytecode: string;
}

export interface VerifierRecord {
  source: 'official' | 'dev';
  /** sha256 of the creation bytecode. */
  codeHash: string;
  /** Artifact name for official verifiers. */
  artifact: string | undefined;
}

interface StoredDevVerifier extends VerifierArtifact {
  codeHash: string;
  savedAt: string;
}

/** The verifier chosen for a circuit: its record for the address book and the artifact to deploy. */
export interface ResolvedVerifier {
  circuit: VerifierCircuit;
  record: VerifierRecord;
  artifact: Artifact;
}

/** Official verifier artifacts of @iden3/contracts, and the function each must expose. */
const OFFICIAL_VERIFIERS: Record<VerifierCircuit, { artifact: string; requiredFunction: string; why: string }> = {
  stateTransition: {
    artifact: 'Groth16VerifierStateTransition',
    requiredFunction: 'verifyProof(uint256[2],uint256[2][2],uint256[2],uint256[4])',
    why: 'the State contract calls IStateTransitionVerifier.verifyProof with 4 public signals',
  },
  credentialAtomicQueryMTPV2OnChain: {
    artifact: 'Groth16VerifierMTPWrapper',
    requiredFunction: 'verify(uint256[2],uint256[2][2],uint256[2],uint256[])',
    why: 'the MTP validator calls IGroth16Verifier.verify; compile the snarkjs verifier with a wrapper like Groth16VerifierMTPWrapper (11 signals)',
  },
  'credentialAtomicQueryV3OnChain-16-16-64-16-32': {
    artifact: 'Groth16VerifierV3Stable_16_16_64_16_32Wrapper',
    requiredFunction: 'verify(uint256[2],uint256[2][2],uint256[2],uint256[])',
    why: 'the V3 validator calls IGroth16Verifier.verify; compile the snarkjs verifier with a wrapper like Groth16VerifierV3Stable_16_16_64_16_32Wrapper (14 signals)',
  },
  credentialAtomicQueryV3OnChain: {
    artifact: 'Groth16VerifierV3StableWrapper',
    requiredFunction: 'verify(uint256[2],uint256[2][2],uint256[2],uint256[])',
    why: 'the V3 validator calls IGroth16Verifier.verify; compile the snarkjs verifier with a wrapper like Groth16VerifierV3StableWrapper (14 signals)',
  },
  authV2: {
    artifact: 'Groth16VerifierAuthV2Wrapper',
    requiredFunction: 'verify(uint256[2],uint256[2][2],uint256[2],uint256[])',
    why: 'the AuthV2Validator calls IGroth16Verifier.verify; compile the snarkjs verifier with a wrapper like Groth16VerifierAuthV2Wrapper (3 signals)',
  },
  authV3: {
    artifact: 'Groth16VerifierAuthV3Wrapper',
    requiredFunction: 'verify(uint256[2],uint256[2][2],uint256[2],uint256[])',
    why: 'the AuthV3Validator calls IGroth16Verifier.verify; compile the snarkjs verifier with a wrapper like Groth16VerifierAuthV3Wrapper (3 signals)',
  },
  'authV3-8-32': {
    artifact: 'Groth16VerifierAuthV3_8_32Wrapper',
    requiredFunction: 'verify(uint256[2],uint256[2][2],uint256[2],uint256[])',
    why: 'the AuthV3_8_32Validator calls IGroth16Verifier.verify; compile the snarkjs verifier with a wrapper like Groth16VerifierAuthV3_8_32Wrapper (3 signals)',
  },
};

/** The @iden3/contracts artifact of the official verifier of a circuit. */
export function officialVerifierArtifactName(circuit: VerifierCircuit): string {
  return OFFICIAL_VERIFIERS[circuit].artifact;
}

/** The code hash the address book must record for `circuit`: the remembered dev verifier's, or the official one's. */
export function expectedVerifierCodeHash(ctx: Context, circuit: VerifierCircuit): string {
  const dev = ctx.store.get<StoredDevVerifier>(DEV_VERIFIERS_NS, circuit);
  return dev?.codeHash ?? bytecodeHash(iden3Artifact(OFFICIAL_VERIFIERS[circuit].artifact).bytecode);
}

/** Validates a dev verifier against the interface its caller contract uses. */
function validateDevVerifier(ethers: typeof import('ethers'), circuit: VerifierCircuit, verifier: VerifierArtifact): VerifierArtifact {
  const field = `verifiers.${circuit}`;
  if (!Array.isArray(verifier.abi)) throw new InputError(`${field}: abi must be an array`, { field });
  const bytecode = checkBytecode(verifier.bytecode, `${field}.bytecode`);
  let iface: import('ethers').Interface;
  try {
    iface = ethers.Interface.from(verifier.abi as InterfaceAbi);
  } catch (error) {
    throw new InputError(`${field}: abi is not a valid contract ABI (${describeError(error)})`, { field });
  }
  const { requiredFunction, why } = OFFICIAL_VERIFIERS[circuit];
  if (iface.getFunction(requiredFunction) === null) {
    throw new InputError(`${field}: the contract must expose ${requiredFunction} (${why})`, { field });
  }
  return { abi: verifier.abi, bytecode };
}

/**
 * Chooses each verifier: provided now, remembered dev one, or official. `remember` saves the
 * choice for later deployments (called once the choice is accepted for this chain).
 */
export async function resolveVerifiers(
  ctx: Context,
  options: { verifiers?: Partial<Record<VerifierCircuit, VerifierArtifact>>; officialVerifiers?: boolean },
): Promise<{ verifiers: Record<VerifierCircuit, ResolvedVerifier>; remember: () => void }> {
  const ethers = await import('ethers');
  const result = {} as Record<VerifierCircuit, ResolvedVerifier>;
  const writes: Array<() => void> = [];
  for (const circuit of VERIFIER_CIRCUITS) {
    const provided = options.verifiers?.[circuit];
    let dev = ctx.store.get<StoredDevVerifier>(DEV_VERIFIERS_NS, circuit);
    if (provided !== undefined) {
      const valid = validateDevVerifier(ethers, circuit, provided);
      const stored: StoredDevVerifier = { ...valid, codeHash: bytecodeHash(valid.bytecode), savedAt: ctx.now().toISOString() };
      writes.push(() => ctx.store.put(DEV_VERIFIERS_NS, circuit, stored));
      dev = stored;
    } else if (options.officialVerifiers === true) {
      writes.push(() => ctx.store.delete(DEV_VERIFIERS_NS, circuit));
      dev = undefined;
    }
    if (dev !== undefined) {
      result[circuit] = {
        circuit,
        record: { source: 'dev', codeHash: dev.codeHash, artifact: undefined },
        artifact: { contractName: `dev ${circuit} verifier`, abi: dev.abi, bytecode: dev.bytecode, linkReferences: {} },
      };
    } else {
      const name = OFFICIAL_VERIFIERS[circuit].artifact;
      const artifact = iden3Artifact(name);
      result[circuit] = { circuit, record: { source: 'official', codeHash: bytecodeHash(artifact.bytecode), artifact: name }, artifact };
    }
  }
  return { verifiers: result, remember: () => writes.forEach((write) => write()) };
}
