/**
 * /healthz of `vc serve` while it proves: issuances one after another (POST
 * /generate-pbq-credentials, each a state-transition proof and a block) with GET /healthz asked
 * one request at a time, one every 20 ms, by this process, in two servers of the same run:
 *
 *  - main thread: VC_WORKERS=0, every call on the server's event loop, its proofs too (the
 *    baseline: witness calculation holds the loop for hundreds of milliseconds per proof);
 *  - prover process: the default, proofs in the prover process (src/iden3/proverPool.ts).
 *
 * Then, in the same servers, V3 proofs (the iden3 V3 issue's figure): one credential issued with a
 * signature proof (no state transition), as many V3 on-chain requests registered (POST
 * /credential-requests, credentialAtomicQueryV3OnChain, proofType sig), and all the
 * prove-submits (POST /generate-submit-proof: witness, Groth16 proof, submitResponse) posted at
 * once, /healthz sampled the same way while they run. The route holds the server's exclusive
 * turn, so they run one after another: each answer's time includes its wait in that queue (the
 * i-th about i proofs), and the phase's wall time over the count is the time of one.
 *
 * Each server starts on a fresh home (its embedded chain deployed) and issues one credential and
 * proves one V3 request before the sampling starts (deployment, circuit files, on-demand V3
 * circuits and the prover's start are not measured).
 * Reported: /healthz p50, p99 and max in both, their ratio, each issuance's duration, and the V3
 * phase's wall time (per proof, and each answer's time, queue included).
 * Acceptance (iden3 V3 issue): p99 under 100 ms while the proofs run in the prover process (both
 * phases).
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
/** The V3 phase's circuit (the on-chain one the embedded UniversalVerifier's V3 validator takes). */
const V3_CIRCUIT = 'credentialAtomicQueryV3OnChain';

interface HealthFigures {
  samples: number;
  failed: number;
  latencyMs: { p50: number; p99: number; mean: number; max: number };
}

export interface ProvingServerFigures {
  proofs: number;
  issuanceMs: { median: number; samples: number[] };
  health: HealthFigures;
  /**
   * The V3 phase: `proofs` prove-submits posted at once and served one after another (the route's
   * exclusive turn): `answeredMs` each one's time to its answer, queue included; `perProofMs` the
   * phase's wall time over the count.
   */
  v3: { answeredMs: { median: number; samples: number[] }; wallMs: number; perProofMs: number; health: HealthFigures };
}

export interface ProvingBenchReport {
  benchmark: 'proving';
  machine: { cpus: number; cpuModel: string | undefined; node: string };
  mainThread: ProvingServerFigures;
  proverProcess: ProvingServerFigures;
  /** proverProcess.health p99 / mainThread.health p99. */
  healthP99Ratio: number;
  /** The same ratio in the V3 phase. */
  v3HealthP99Ratio: number;
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
    // The V3 phase's credential and requests, and one V3 prove-submit (on-demand V3 circuits), before any sampling.
    await post(`${server.urls.issuer}/generate-pbq-credentials`, { did: holder, proof: 'sig' });
    const requests: Array<Record<string, unknown>> = [];
    for (let i = 0; i <= proofs; i++) {
      requests.push(await post(`${server.urls.verifier}/credential-requests`, { circuitId: V3_CIRCUIT, proofType: 'sig', op: '$lt', value: 20010101 + i }));
    }
    progress(`${name}: warm-up V3 prove-submit (on-demand V3 circuits)`);
    await post(`${server.urls.holder}/generate-submit-proof`, { credentialRequest: requests[0] });
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

    let v3Done = false;
    const v3Sampling = sampleHealth(`${server.urls.verifier}/healthz`, HEALTH_INTERVAL_MS, () => v3Done);
    const v3Durations: number[] = [];
    const v3Start = performance.now();
    try {
      await Promise.all(
        requests.slice(1).map(async (credentialRequest, i) => {
          const started = performance.now();
          await post(`${server.urls.holder}/generate-submit-proof`, { credentialRequest });
          v3Durations.push(round(performance.now() - started, 1));
          progress(`${name}: V3 prove-submit ${i + 1}/${proofs} answered after ${Math.round(v3Durations.at(-1)!)} ms`);
        }),
      );
    } finally {
      v3Done = true;
    }
    const v3WallMs = round(performance.now() - v3Start, 1);
    const v3Health = await v3Sampling;
    return {
      proofs,
      issuanceMs: { median: round(median(durations), 1), samples: durations },
      health: { samples: health.latencies.length, failed: health.failed, latencyMs: latencyFigures(health.latencies) },
      v3: {
        answeredMs: { median: round(median(v3Durations), 1), samples: v3Durations },
        wallMs: v3WallMs,
        perProofMs: round(v3WallMs / proofs, 1),
        health: { samples: v3Health.latencies.length, failed: v3Health.failed, latencyMs: latencyFigures(v3Health.latencies) },
      },
    };
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
  const ratio = (prover: HealthFigures, main: HealthFigures): number => (main.latencyMs.p99 === 0 ? 0 : round(prover.latencyMs.p99 / main.latencyMs.p99, 3));
  const met = (figures: HealthFigures): boolean => figures.failed === 0 && figures.latencyMs.p99 < HEALTH_P99_TARGET_MS;
  return {
    benchmark: 'proving',
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
    mainThread,
    proverProcess,
    healthP99Ratio: ratio(proverProcess.health, mainThread.health),
    v3HealthP99Ratio: ratio(proverProcess.v3.health, mainThread.v3.health),
    acceptance: { healthP99TargetMs: HEALTH_P99_TARGET_MS, met: met(proverProcess.health) && met(proverProcess.v3.health) },
  };
}

runIfMain(import.meta.url, (proofs) => runProvingBench({ proofs }), (report) => !report.acceptance.met);
