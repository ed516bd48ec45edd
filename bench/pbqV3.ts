/**
 * The V3 on-chain slice on the embedded chain, in a throwaway home: signature issuance (`--proof
 * sig`: a BJJ signature, no state transition) per credential against MTP issuance (signature,
 * stateTransition proof, block) in the same run, then per run a fresh V3 request and a timed
 * prove-submit: with a signature proof ($between) and with an MTP proof ($sd), split into the
 * witness, the Groth16 proof, and the rest (inputs, revocation status, submission, receipt).
 * Run: node dist/bench/pbqV3.js [runs]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/context.js';
import { createHolderIdentity, createIssuerIdentity } from '../src/core/pbq/identities.js';
import { issuePbqCredential, issueSignedPbqCredential } from '../src/core/pbq/pbqIssuance.js';
import { proveAndSubmit } from '../src/core/pbq/prove.js';
import { createCredentialRequest } from '../src/core/pbq/request.js';
import { pbqCredentialSchema, type PbqCredentialInput, type RequestOptions } from '../src/core/pbq/pbqSchemas.js';
import { getIden3Prover } from '../src/iden3/wallet.js';
import { median, round, runIfMain } from './stats.js';

/** Signature issuances timed one by one. */
const SIGNED = 30;
/** MTP issuances (each a state transition) timed one by one: the baseline is their median. */
const MTP_ISSUANCES = 3;
/** The issue's targets: a signature issuance under 100 ms and at least 50x faster than an MTP one; prove-submit minus proving under 1.5 s. */
const TARGETS = { signedMs: 100, speedup: 50, overheadMs: 1500 };

interface ProofSample {
  circuitId: string;
  witnessMs: number;
  provingMs: number;
  proveSubmitMs: number;
  /** prove-submit minus witness and proof. */
  overheadMs: number;
}

export interface PbqV3BenchReport {
  benchmark: 'pbqV3';
  machine: { cpus: number; cpuModel: string | undefined; node: string };
  runs: number;
  issuance: { signedMedianMs: number; signedMaxMs: number; mtpMs: number; mtpSamplesMs: number[]; speedup: number };
  signatureProof: { witnessMs: number; provingMs: number; proveSubmitMs: number; overheadMs: number };
  mtpProof: { witnessMs: number; provingMs: number; proveSubmitMs: number; overheadMs: number };
  samples: ProofSample[];
  acceptance: { signedUnder100Ms: boolean; speedupAtLeast50: boolean; overheadUnder1500Ms: boolean; met: boolean };
}

async function timedProveSubmit(ctx: Context, credential: PbqCredentialInput, options: RequestOptions): Promise<ProofSample> {
  const { prover } = await getIden3Prover(ctx, 'v3');
  const request = await createCredentialRequest(ctx, { circuitId: 'credentialAtomicQueryV3OnChain', ...options });
  const before = prover.proofsGenerated;
  const start = performance.now();
  await proveAndSubmit(ctx, { credential, request });
  const proveSubmitMs = performance.now() - start;
  const timing = prover.timingOf(before);
  const witnessMs = timing?.witnessMs ?? NaN;
  const provingMs = timing?.provingMs ?? NaN;
  return { circuitId: timing?.circuitId ?? '?', witnessMs: round(witnessMs, 1), provingMs: round(provingMs, 1), proveSubmitMs: round(proveSubmitMs, 1), overheadMs: round(proveSubmitMs - witnessMs - provingMs, 1) };
}

const medians = (samples: ProofSample[]): PbqV3BenchReport['signatureProof'] => ({
  witnessMs: round(median(samples.map((s) => s.witnessMs)), 1),
  provingMs: round(median(samples.map((s) => s.provingMs)), 1),
  proveSubmitMs: round(median(samples.map((s) => s.proveSubmitMs)), 1),
  overheadMs: round(median(samples.map((s) => s.overheadMs)), 1),
});

/** Runs the benchmark and returns the JSON report. */
export async function runPbqV3Bench(options: { runs?: number } = {}): Promise<PbqV3BenchReport> {
  const runs = options.runs ?? 3;
  const home = mkdtempSync(path.join(os.tmpdir(), 'vc-bench-pbq-v3-'));
  const ctx = new Context({ config: parseConfig({}, home) });
  try {
    const holder = await createHolderIdentity(ctx);
    await createIssuerIdentity(ctx);
    // The V3 circuits and their verifiers, and the chain, before anything is timed.
    await getIden3Prover(ctx, 'v3');
    await getIden3Prover(ctx, 'mtp');

    const signedMs: number[] = [];
    let signed: PbqCredentialInput | undefined;
    for (let i = 0; i < SIGNED; i += 1) {
      const start = performance.now();
      const issued = await issueSignedPbqCredential(ctx, { holderDid: holder.did_String });
      signedMs.push(performance.now() - start);
      signed = pbqCredentialSchema.parse(issued.credential);
    }
    const mtpIssuanceMs: number[] = [];
    let published: PbqCredentialInput | undefined;
    for (let i = 0; i < MTP_ISSUANCES; i += 1) {
      const start = performance.now();
      published = pbqCredentialSchema.parse((await issuePbqCredential(ctx, { holderDid: holder.did_String })).credential);
      mtpIssuanceMs.push(performance.now() - start);
    }
    const mtpMs = median(mtpIssuanceMs);

    const sigSamples: ProofSample[] = [];
    const mtpSamples: ProofSample[] = [];
    for (let i = 0; i < runs; i += 1) {
      sigSamples.push(await timedProveSubmit(ctx, signed!, { proofType: 'sig', op: '$between', value: '19800101,19991231' }));
      mtpSamples.push(await timedProveSubmit(ctx, published!, { proofType: 'mtp', op: '$sd' }));
    }
    const signedMedian = median(signedMs);
    const speedup = mtpMs / signedMedian;
    const signatureProof = medians(sigSamples);
    const mtpProof = medians(mtpSamples);
    const acceptance = {
      signedUnder100Ms: signedMedian < TARGETS.signedMs,
      speedupAtLeast50: speedup >= TARGETS.speedup,
      overheadUnder1500Ms: Math.max(signatureProof.overheadMs, mtpProof.overheadMs) < TARGETS.overheadMs,
      met: false,
    };
    acceptance.met = acceptance.signedUnder100Ms && acceptance.speedupAtLeast50 && acceptance.overheadUnder1500Ms;
    return {
      benchmark: 'pbqV3',
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
      runs,
      issuance: { signedMedianMs: round(signedMedian, 1), signedMaxMs: round(Math.max(...signedMs), 1), mtpMs: round(mtpMs, 1), mtpSamplesMs: mtpIssuanceMs.map((ms) => round(ms, 1)), speedup: round(speedup, 1) },
      signatureProof,
      mtpProof,
      samples: [...sigSamples, ...mtpSamples],
      acceptance,
    };
  } finally {
    const { stopLocalNode } = await import('../src/chain/node/lifecycle.js');
    await stopLocalNode(ctx, { persist: false }).catch(() => undefined);
    await ctx.close();
    rmSync(home, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, (runs) => runPbqV3Bench(runs === undefined ? {} : { runs }));
