/**
 * Proof-by-query benchmark on the embedded chain, in a throwaway home: issuance (BJJ signature,
 * stateTransition proof, state publication) once, then per run a fresh registered request and a
 * timed prove-submit (credentialAtomicQueryMTPV2OnChain proof + submission + receipt). Proof
 * generation is split into witness calculation and Groth16 proving, as measured by the prover.
 * Run: node dist/bench/pbq.js [runs]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/context.js';
import { createHolderIdentity, createIssuerIdentity } from '../src/core/pbq/identities.js';
import { issuePbqCredential } from '../src/core/pbq/pbqIssuance.js';
import { proveAndSubmit } from '../src/core/pbq/prove.js';
import { createCredentialRequest } from '../src/core/pbq/request.js';
import { pbqCredentialSchema } from '../src/core/pbq/pbqSchemas.js';
import { getIden3Prover } from '../src/iden3/wallet.js';
import { median, round, runIfMain } from './stats.js';

interface PhaseStats {
  witnessMs: number;
  provingMs: number;
}

export interface PbqBenchReport {
  benchmark: 'pbq';
  machine: { cpus: number; cpuModel: string | undefined; node: string };
  runs: number;
  circuitsDir: string;
  /** Median milliseconds. */
  stateTransition: PhaseStats & { issueTotalMs: number };
  queryProof: PhaseStats;
  /** Prove-submit end to end: revocation status, inputs, witness, proof, submission, receipt. */
  proveSubmitMs: { median: number; min: number; max: number };
  samples: Array<PhaseStats & { proveSubmitMs: number }>;
}

/** Runs the benchmark and returns the JSON report. */
export async function runPbqBench(options: { runs?: number; circuitsPath?: string } = {}): Promise<PbqBenchReport> {
  const runs = options.runs ?? 3;
  const home = mkdtempSync(path.join(os.tmpdir(), 'vc-bench-pbq-'));
  const vars: Record<string, string> = {};
  const circuitsPath = options.circuitsPath ?? process.env.CIRCUITS_PATH;
  if (circuitsPath !== undefined) vars.CIRCUITS_PATH = circuitsPath;
  const ctx = new Context({ config: parseConfig(vars, home) });
  try {
    const holder = await createHolderIdentity(ctx);
    await createIssuerIdentity(ctx);
    const { prover, circuitsDir } = await getIden3Prover(ctx);

    const issueStart = performance.now();
    const issued = await issuePbqCredential(ctx, { holderDid: holder.did_String });
    const issueTotalMs = performance.now() - issueStart;
    const transition = prover.timings.find((t) => t.circuitId === 'stateTransition');
    const credential = pbqCredentialSchema.parse(issued.credential);

    const samples: PbqBenchReport['samples'] = [];
    for (let i = 0; i < runs; i += 1) {
      const request = await createCredentialRequest(ctx, {});
      const before = prover.timings.length;
      const start = performance.now();
      await proveAndSubmit(ctx, { credential, request });
      const proveSubmitMs = performance.now() - start;
      const timing = prover.timings.slice(before).find((t) => t.circuitId === 'credentialAtomicQueryMTPV2OnChain');
      samples.push({ witnessMs: round(timing?.witnessMs ?? NaN, 1), provingMs: round(timing?.provingMs ?? NaN, 1), proveSubmitMs: round(proveSubmitMs, 1) });
    }
    const totals = samples.map((s) => s.proveSubmitMs);
    return {
      benchmark: 'pbq',
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
      runs,
      circuitsDir,
      stateTransition: { witnessMs: round(transition?.witnessMs ?? NaN, 1), provingMs: round(transition?.provingMs ?? NaN, 1), issueTotalMs: round(issueTotalMs, 1) },
      queryProof: { witnessMs: round(median(samples.map((s) => s.witnessMs)), 1), provingMs: round(median(samples.map((s) => s.provingMs)), 1) },
      proveSubmitMs: { median: round(median(totals), 1), min: Math.min(...totals), max: Math.max(...totals) },
      samples,
    };
  } finally {
    const { stopLocalNode } = await import('../src/chain/node/lifecycle.js');
    await stopLocalNode(ctx, { persist: false }).catch(() => undefined);
    await ctx.close();
    rmSync(home, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, (runs) => runPbqBench(runs === undefined ? {} : { runs }));
