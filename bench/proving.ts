/**
 * /healthz of `vc serve` while it proves: issuances one after another (POST
 * /generate-pbq-credentials, each a state-transition proof and a block) with GET /healthz asked
 * one request at a time, one every 20 ms, by this process, in two servers of the same run:
 *
 *  - main thread: VC_WORKERS=0, every call on the server's event loop, its proofs too (the
 *    baseline: witness calculation holds the loop for hundreds of milliseconds per proof);
 *  - prover process: the default, proofs in the prover process (src/iden3/proverPool.ts).
 *
 * Each server starts on a fresh home (its embedded chain deployed) and issues one credential
 * before the sampling starts (deployment, circuit files and the prover's start are not measured).
 * Reported: /healthz p50, p99 and max in both, their ratio, and each issuance's duration.
 * Acceptance (iden3 V3 issue): p99 under 100 ms while the proofs run in the prover process.
 * Run: node dist/bench/proving.js [proofs]   (default 8)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { latencyFigures, sampleHealth, startServerProcess } from './http.js';
import { median, round, runIfMain } from './stats.js';

/** The /healthz target while proofs run. */
export const HEALTH_P99_TARGET_MS = 100;
const HEALTH_INTERVAL_MS = 20;

export interface ProvingServerFigures {
  proofs: number;
  issuanceMs: { median: number; samples: number[] };
  health: { samples: number; failed: number; latencyMs: { p50: number; p99: number; mean: number; max: number } };
}

export interface ProvingBenchReport {
  benchmark: 'proving';
  machine: { cpus: number; cpuModel: string | undefined; node: string };
  mainThread: ProvingServerFigures;
  proverProcess: ProvingServerFigures;
  /** proverProcess.health p99 / mainThread.health p99. */
  healthP99Ratio: number;
  acceptance: { healthP99TargetMs: number; met: boolean };
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const parsed = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200 && response.status !== 201) throw new Error(`${url}: ${response.status} ${JSON.stringify(parsed).slice(0, 300)}`);
  return parsed;
}

async function measureServer(name: string, workers: string | undefined, proofs: number, progress: (line: string) => void): Promise<ProvingServerFigures> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'vc-bench-proving-'));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
  for (const variable of ['XDG_CACHE_HOME', 'VC_CIRCUITS_CACHE', 'CIRCUITS_PATH']) if (process.env[variable] !== undefined) env[variable] = process.env[variable];
  if (workers !== undefined) env.VC_WORKERS = workers;
  const server = await startServerProcess(home, env);
  try {
    const holder = String((await post(`${server.urls.holder}/did`, {})).did_String);
    await post(`${server.urls.issuer}/did`, {});
    progress(`${name}: warm-up issuance (deployment, circuits, prover start)`);
    await post(`${server.urls.issuer}/generate-pbq-credentials`, { did: holder });
    let done = false;
    const sampling = sampleHealth(`${server.urls.verifier}/healthz`, HEALTH_INTERVAL_MS, () => done);
    const durations: number[] = [];
    try {
      for (let i = 0; i < proofs; i++) {
        const started = performance.now();
        await post(`${server.urls.issuer}/generate-pbq-credentials`, { did: holder });
        durations.push(round(performance.now() - started, 1));
        progress(`${name}: issuance ${i + 1}/${proofs} in ${Math.round(durations.at(-1)!)} ms`);
      }
    } finally {
      done = true;
    }
    const health = await sampling;
    return { proofs, issuanceMs: { median: round(median(durations), 1), samples: durations }, health: { samples: health.latencies.length, failed: health.failed, latencyMs: latencyFigures(health.latencies) } };
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Runs the benchmark and returns the JSON report. */
export async function runProvingBench(options: { proofs?: number | undefined; progress?: (line: string) => void } = {}): Promise<ProvingBenchReport> {
  const proofs = options.proofs ?? 8;
  const progress = options.progress ?? ((line: string) => process.stderr.write(`[proving] ${line}\n`));
  const mainThread = await measureServer('main thread (VC_WORKERS=0)', '0', proofs, progress);
  const proverProcess = await measureServer('prover process', undefined, proofs, progress);
  const ratio = mainThread.health.latencyMs.p99 === 0 ? 0 : round(proverProcess.health.latencyMs.p99 / mainThread.health.latencyMs.p99, 3);
  return {
    benchmark: 'proving',
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
    mainThread,
    proverProcess,
    healthP99Ratio: ratio,
    acceptance: { healthP99TargetMs: HEALTH_P99_TARGET_MS, met: proverProcess.health.failed === 0 && proverProcess.health.latencyMs.p99 < HEALTH_P99_TARGET_MS },
  };
}

runIfMain(import.meta.url, (proofs) => runProvingBench({ proofs }), (report) => !report.acceptance.met);
