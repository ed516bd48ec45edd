/**
 * Full Groth16 proofs with the pipeline's built files (circuit.wasm, circuit_final.zkey,
 * verification_key.json, compiled Solidity verifier) for inputs the js-sdk marshals for real
 * identities and credentials. Each proof is checked by three independent verifiers: snarkjs,
 * the js-sdk's own NativeProver.verify (the path ProofService.verifyProof / verifyZKPResponse
 * take, pairing with noble-curves, verification key read through FSCircuitStorage), and the
 * compiled verifier contract deployed on the embedded anvil chain. A tampered public signal must
 * fail all three.
 *
 * bench/inputs/credentialAtomicQueryMTPV2OnChain.json is the MTP input built here; the last test
 * checks it is still current (VC_WRITE_BENCH_INPUTS=1 rewrites it).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AtomicQueryMTPV2OnChainPubSignals,
  type CircuitId,
  FSCircuitStorage,
  NativeProver,
  Operators,
  StateTransitionPubSignals,
  byteEncoder,
} from '@0xpolygonid/js-sdk';
import type { ZKProof } from '@iden3/js-jwz';
import { ContractFactory, type BaseContract } from 'ethers';
import { stopLocalNode } from '../../src/chain/node/lifecycle.js';
import { connectChain } from '../../src/chain/connection.js';
import { ensureCircuits, loadVerifierArtifact, type CircuitFiles, type CircuitsInfo } from '../../src/circuits/build.js';
import { releaseBn128 } from '../../src/circuits/curve.js';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { ROOT } from '../helpers.js';
import {
  BIRTH_DATE_BEFORE,
  PROOF_CHALLENGE,
  PROOF_REQUEST_ID,
  PROOF_TIMESTAMP,
  mtpV2OnChainProofCase,
  stateTransitionProofCase,
  type MtpProofCase,
  type StateTransitionProofCase,
} from './support/proofInputs.js';
import { validatorQueryHash } from './support/queryHash.js';

const FIELD_PRIME = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const MTP = 'credentialAtomicQueryMTPV2OnChain';
const STATE_TRANSITION = 'stateTransition';
const MTP_BENCH_INPUT = path.join(ROOT, 'bench', 'inputs', `${MTP}.json`);

interface Groth16Proof {
  pi_a: string[];
  pi_b: string[][];
  pi_c: string[];
  protocol: string;
  curve: string;
}

interface Snarkjs {
  groth16: {
    fullProve(input: unknown, wasm: string, zkey: string): Promise<{ proof: Groth16Proof; publicSignals: string[] }>;
    verify(vk: unknown, signals: string[], proof: Groth16Proof): Promise<boolean>;
  };
}

/** The verifier contract's entry points (the wrapper's `verify` and snarkjs's `verifyProof`). */
type VerifierContract = BaseContract & {
  verify(a: string[], b: string[][], c: string[], signals: string[]): Promise<boolean>;
  verifyProof(a: string[], b: string[][], c: string[], signals: string[]): Promise<boolean>;
};

interface Proven {
  circuit: CircuitFiles;
  proof: Groth16Proof;
  signals: string[];
  verificationKey: unknown;
  contract: VerifierContract;
}

let tmp: string;
let ctx: Context;
let info: CircuitsInfo;
let snarkjs: Snarkjs;
let sdkProver: NativeProver;
let mtpCase: MtpProofCase;
let stateCase: StateTransitionProofCase;
const proven: Record<string, Proven> = {};

function newContext(): Context {
  return new Context({ config: parseConfig({}, path.join(tmp, 'home')) });
}

/** Proof coordinates as the Solidity verifier takes them (G2 coordinates in (c1, c0) order). */
function solidityCalldata(proof: Groth16Proof): { a: string[]; b: string[][]; c: string[] } {
  return {
    a: [proof.pi_a[0]!, proof.pi_a[1]!],
    b: [
      [proof.pi_b[0]![1]!, proof.pi_b[0]![0]!],
      [proof.pi_b[1]![1]!, proof.pi_b[1]![0]!],
    ],
    c: [proof.pi_c[0]!, proof.pi_c[1]!],
  };
}

/** Results of the three verifiers (the contract through both of its entry points). */
async function verifyEverywhere(id: string, signals: string[]): Promise<{ snarkjs: boolean; jsSdk: boolean; verify: boolean; verifyProof: boolean }> {
  const { proof, verificationKey, contract } = proven[id]!;
  const { a, b, c } = solidityCalldata(proof);
  return {
    snarkjs: await snarkjs.groth16.verify(verificationKey, signals, proof),
    jsSdk: await sdkProver.verify({ proof, pub_signals: signals } as unknown as ZKProof, id as CircuitId),
    verify: await contract.verify(a, b, c, signals),
    verifyProof: await contract.verifyProof(a, b, c, signals),
  };
}

const ALL_ACCEPT = { snarkjs: true, jsSdk: true, verify: true, verifyProof: true };
const ALL_REJECT = { snarkjs: false, jsSdk: false, verify: false, verifyProof: false };

/** The signals with signal `index` changed to another field element. */
function tampered(signals: string[], index: number): string[] {
  return signals.map((s, i) => (i === index ? ((BigInt(s) + 1n) % FIELD_PRIME).toString() : s));
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'vc-proof-test-'));
  ctx = newContext();
  // The project's circuits from the per-user cache (built on a cold cache: a minute or two).
  [info, mtpCase, stateCase] = await Promise.all([ensureCircuits(ctx), mtpV2OnChainProofCase(), stateTransitionProofCase()]);
  const moduleName: string = 'snarkjs';
  snarkjs = (await import(moduleName)) as Snarkjs;
  sdkProver = new NativeProver(new FSCircuitStorage({ dirname: info.dir }));
  const connection = await connectChain(ctx);

  for (const [id, input] of [
    [MTP, mtpCase.input],
    [STATE_TRANSITION, stateCase.input],
  ] as const) {
    const circuit = info.circuits.find((c) => c.id === id)!;
    const { proof, publicSignals } = await snarkjs.groth16.fullProve(input, circuit.wasm!, circuit.zkey!);
    const artifact = await loadVerifierArtifact(ctx, id);
    const deployed = await new ContractFactory(artifact.abi as never, artifact.bytecode, connection.signer).deploy();
    await deployed.waitForDeployment();
    proven[id] = {
      circuit,
      proof,
      signals: publicSignals,
      verificationKey: JSON.parse(readFileSync(circuit.verificationKey!, 'utf8')) as unknown,
      contract: deployed as VerifierContract,
    };
  }
}, 900_000);

afterAll(async () => {
  await ctx?.close();
  await releaseBn128();
  if (tmp !== undefined) {
    const stopper = newContext();
    try {
      await stopLocalNode(stopper, { persist: false });
    } finally {
      await stopper.close();
    }
    rmSync(tmp, { recursive: true, force: true });
  }
}, 60_000);

describe('credentialAtomicQueryMTPV2OnChain: full Groth16 proof', () => {
  it('uses the pipeline files (development keys, official layout)', () => {
    const { circuit } = proven[MTP]!;
    expect(info.source).toBe('built');
    expect(circuit.development).toBe(true);
    expect(circuit.dir).toBe(path.join(info.dir, MTP));
    expect(circuit.publicSignals).toBe(11);
  });

  it('proves the statement the validator reads: holder, query hash, request, GIST root, issuer state, timestamp', () => {
    const { signals } = proven[MTP]!;
    const decoded = new AtomicQueryMTPV2OnChainPubSignals().pubSignalsUnmarshal(byteEncoder.encode(JSON.stringify(signals)));
    expect(decoded.merklized).toBe(1);
    expect(decoded.userID.string()).toBe(mtpCase.userId.string());
    expect(decoded.requestID).toBe(PROOF_REQUEST_ID);
    expect(decoded.challenge).toBe(PROOF_CHALLENGE);
    expect(decoded.gistRoot.bigInt()).toBe(mtpCase.gistRoot.bigInt());
    expect(decoded.issuerID.string()).toBe(mtpCase.issuerId.string());
    expect(decoded.issuerClaimIdenState.bigInt()).toBe(mtpCase.issuerState.bigInt());
    expect(decoded.isRevocationChecked).toBe(1);
    expect(decoded.issuerClaimNonRevState.bigInt()).toBe(mtpCase.issuerState.bigInt());
    expect(decoded.timestamp).toBe(PROOF_TIMESTAMP);
    expect(decoded.circuitQueryHash).toBe(
      validatorQueryHash({
        schema: mtpCase.schema.bigInt(),
        slotIndex: 0,
        operator: Operators.LT,
        claimPathKey: mtpCase.claimPathKey,
        claimPathNotExists: 0,
        values: [BIRTH_DATE_BEFORE],
      }),
    );
  });

  it('verifies with snarkjs, with the js-sdk NativeProver and with the deployed Solidity verifier', async () => {
    expect(await verifyEverywhere(MTP, proven[MTP]!.signals)).toEqual(ALL_ACCEPT);
  });

  it('is rejected by all three verifiers when a public signal is tampered with', async () => {
    const { signals } = proven[MTP]!;
    // Timestamp (a replay at another time), user id (someone else's proof) and query hash (another query).
    for (const index of [10, 1, 2]) {
      expect(await verifyEverywhere(MTP, tampered(signals, index)), `signal ${index}`).toEqual(ALL_REJECT);
    }
  });

  it('binds every public signal: snarkjs and the contract reject a change to any of them', async () => {
    const { signals, proof, verificationKey, contract } = proven[MTP]!;
    const { a, b, c } = solidityCalldata(proof);
    for (let index = 0; index < signals.length; index++) {
      const changed = tampered(signals, index);
      expect(await snarkjs.groth16.verify(verificationKey, changed, proof), `snarkjs, signal ${index}`).toBe(false);
      expect(await contract.verify(a, b, c, changed), `contract, signal ${index}`).toBe(false);
    }
  });

  it('is rejected for a proof element that is not the prover’s', async () => {
    const { signals, proof } = proven[MTP]!;
    // The stateTransition proof's A, B, C with the MTP signals: a valid-looking proof of nothing.
    const foreign = { ...proof, pi_c: proven[STATE_TRANSITION]!.proof.pi_c };
    const saved = proven[MTP]!.proof;
    proven[MTP]!.proof = foreign;
    try {
      expect(await verifyEverywhere(MTP, signals)).toEqual(ALL_REJECT);
    } finally {
      proven[MTP]!.proof = saved;
    }
  });

  it('bench/inputs/credentialAtomicQueryMTPV2OnChain.json is this js-sdk marshalled input', () => {
    if (process.env.VC_WRITE_BENCH_INPUTS === '1') writeFileSync(MTP_BENCH_INPUT, `${JSON.stringify(mtpCase.input, null, 1)}\n`);
    expect(JSON.parse(readFileSync(MTP_BENCH_INPUT, 'utf8'))).toEqual(mtpCase.input);
  });
});

describe('stateTransition: full Groth16 proof', () => {
  it('proves the transition State.transitState takes: id, old state, new state, genesis flag', () => {
    const { signals } = proven[STATE_TRANSITION]!;
    expect(signals).toEqual([stateCase.id.bigInt().toString(), stateCase.oldState.bigInt().toString(), stateCase.newState.bigInt().toString(), '1']);
    const decoded = new StateTransitionPubSignals().pubSignalsUnmarshal(byteEncoder.encode(JSON.stringify(signals)));
    expect(decoded.userId.string()).toBe(stateCase.id.string());
    expect(decoded.isOldStateGenesis).toBe(true);
  });

  it('verifies with snarkjs, with the js-sdk NativeProver and with the deployed Solidity verifier', async () => {
    expect(await verifyEverywhere(STATE_TRANSITION, proven[STATE_TRANSITION]!.signals)).toEqual(ALL_ACCEPT);
  });

  it('is rejected by all three verifiers when any public signal is tampered with', async () => {
    const { signals } = proven[STATE_TRANSITION]!;
    for (let index = 0; index < signals.length; index++) {
      expect(await verifyEverywhere(STATE_TRANSITION, tampered(signals, index)), `signal ${index}`).toEqual(ALL_REJECT);
    }
  });
});
