/**
 * Issuance throughput on the embedded chain, in a throwaway home: group commit against one
 * credential per state transition, in the same run.
 *
 *  - single: 5 issuances one after another, each its own state transition (what `vc issuer
 *    issue --holder` does): the per-credential baseline.
 *  - batch: 100 credentials with one state transition (`vc issuer issue --batch`, through the
 *    same operation): total and per-credential time; acceptance: per credential at most 1/10 of a
 *    single issuance.
 *  - HTTP: `vc serve --role issuer` in this process on a free loopback port; one POST
 *    /generate-pbq-credentials alone, then 10 at once (they coalesce into shared publications);
 *    acceptance: the 10 finish within 2x the single one.
 *
 * A warm-up issuance first deploys the contracts and loads the circuits (not timed).
 * Run: node dist/bench/issuance.js [batch size]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/context.js';
import { invokeOperation } from '../src/core/operation.js';
import { pbqIssueBatch } from '../src/core/operations/pbqOperations.js';
import { createHolderIdentity, createIssuerIdentity } from '../src/core/pbq/identities.js';
import { issuePbqCredential } from '../src/core/pbq/pbqIssuance.js';
import { median, round, runIfMain } from './stats.js';

export interface IssuanceBenchReport {
  benchmark: 'issuance';
  machine: { cpus: number; cpuModel: string | undefined; node: string };
  single: { runs: number; samplesMs: number[]; medianMs: number };
  batch: {
    credentials: number;
    totalMs: number;
    perCredentialMs: number;
    /** perCredentialMs / single.medianMs; acceptance: at most 0.1. */
    perCredentialVsSingle: number;
    stateTransitions: number;
  };
  http: {
    singleMs: number;
    concurrent: number;
    concurrentTotalMs: number;
    /** concurrentTotalMs / singleMs; acceptance: at most 2. */
    concurrentVsSingle: number;
    /** Distinct state transitions the concurrent issuances used. */
    stateTransitions: number;
    failed: number;
  };
  acceptable: boolean;
}

interface IssuedResponse {
  credential: { proof: Array<{ type: string; issuerData?: { state?: { txId?: string } } }> };
}

function txIdOf(response: IssuedResponse): string | undefined {
  return response.credential.proof.find((p) => p.type === 'Iden3SparseMerkleTreeProof')?.issuerData?.state?.txId;
}

async function postIssue(url: string, did: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/generate-pbq-credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ did }) });
  return { status: response.status, body: (await response.json()) as unknown };
}

/** Runs the benchmark and returns the JSON report. */
export async function runIssuanceBench(options: { batchSize?: number; singles?: number; concurrent?: number; progress?: (line: string) => void } = {}): Promise<IssuanceBenchReport> {
  const batchSize = options.batchSize ?? 100;
  const singles = options.singles ?? 5;
  const concurrent = options.concurrent ?? 10;
  const progress = options.progress ?? ((line: string) => process.stderr.write(`[issuance] ${line}\n`));
  const home = mkdtempSync(path.join(os.tmpdir(), 'vc-bench-issuance-'));
  const vars: Record<string, string> = {};
  if (process.env.CIRCUITS_PATH !== undefined) vars.CIRCUITS_PATH = process.env.CIRCUITS_PATH;
  const ctx = new Context({ config: parseConfig(vars, home) });
  let server: { close(): Promise<void> } | undefined;
  try {
    const holder = (await createHolderIdentity(ctx)).did_String;
    await createIssuerIdentity(ctx);
    progress('warm-up issuance (contracts, circuits)');
    await issuePbqCredential(ctx, { holderDid: holder });

    progress(`${singles} single issuances`);
    const singleSamples: number[] = [];
    for (let i = 0; i < singles; i++) {
      const started = performance.now();
      await issuePbqCredential(ctx, { holderDid: holder });
      singleSamples.push(performance.now() - started);
    }
    const singleMedian = median(singleSamples);

    progress(`a batch of ${batchSize}`);
    const batchStarted = performance.now();
    const batch = await invokeOperation(ctx, pbqIssueBatch, { batch: Array.from({ length: batchSize }, () => ({ did: holder })) });
    const batchMs = performance.now() - batchStarted;
    const batchTransitions = new Set(batch.credentials.map((c) => txIdOf(c as unknown as IssuedResponse))).size;

    progress(`HTTP: one issuance, then ${concurrent} at once`);
    const { startServer } = await import('../src/http/server.js');
    const running = await startServer(ctx, { roles: ['issuer'], port: 0, host: '127.0.0.1' });
    server = running;
    const url = running.urls.issuer!;
    const oneStarted = performance.now();
    const one = await postIssue(url, holder);
    const singleHttpMs = performance.now() - oneStarted;
    if (one.status !== 200) throw new Error(`POST /generate-pbq-credentials answered ${one.status}: ${JSON.stringify(one.body).slice(0, 300)}`);
    const manyStarted = performance.now();
    const many = await Promise.all(Array.from({ length: concurrent }, () => postIssue(url, holder)));
    const concurrentMs = performance.now() - manyStarted;
    const failed = many.filter((r) => r.status !== 200).length;
    const httpTransitions = new Set(many.filter((r) => r.status === 200).map((r) => txIdOf(r.body as IssuedResponse))).size;

    const perCredential = batchMs / batchSize;
    const report: IssuanceBenchReport = {
      benchmark: 'issuance',
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
      single: { runs: singles, samplesMs: singleSamples.map((v) => round(v, 1)), medianMs: round(singleMedian, 1) },
      batch: {
        credentials: batchSize,
        totalMs: round(batchMs, 1),
        perCredentialMs: round(perCredential, 1),
        perCredentialVsSingle: round(perCredential / singleMedian, 4),
        stateTransitions: batchTransitions,
      },
      http: {
        singleMs: round(singleHttpMs, 1),
        concurrent,
        concurrentTotalMs: round(concurrentMs, 1),
        concurrentVsSingle: round(concurrentMs / singleHttpMs, 3),
        stateTransitions: httpTransitions,
        failed,
      },
      acceptable: false,
    };
    report.acceptable = issuanceProblem(report) === undefined;
    progress(`single ${report.single.medianMs} ms; batch ${report.batch.perCredentialMs} ms per credential (x${report.batch.perCredentialVsSingle}); HTTP ${concurrent} at once x${report.http.concurrentVsSingle} of one`);
    return report;
  } finally {
    await server?.close();
    const { stopLocalNode } = await import('../src/chain/node/lifecycle.js');
    await stopLocalNode(ctx, { persist: false }).catch(() => undefined);
    await ctx.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Why the report misses the issue's acceptance, or undefined. */
export function issuanceProblem(report: IssuanceBenchReport): string | undefined {
  if (report.batch.stateTransitions !== 1) return `the batch used ${report.batch.stateTransitions} state transitions`;
  if (report.batch.perCredentialVsSingle > 0.1) return `a batch credential costs ${report.batch.perCredentialVsSingle} of a single issuance (at most 0.1)`;
  if (report.http.failed > 0) return `${report.http.failed} concurrent HTTP issuances failed`;
  if (report.http.concurrentVsSingle > 2) return `${report.http.concurrent} concurrent HTTP issuances took ${report.http.concurrentVsSingle}x one (at most 2)`;
  return undefined;
}

runIfMain(
  import.meta.url,
  (size) => runIssuanceBench(size === undefined ? {} : { batchSize: size }),
  (report) => !report.acceptable,
);
