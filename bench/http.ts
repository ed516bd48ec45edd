/**
 * HTTP load benchmark of `vc serve`: for a bounded time (default 30 s), autocannon drives the
 * verifier's POST /verify-vc and the holder's POST /generate-selective-disclosure-vc at the same
 * time, against `vc serve --role all` started as a child process on free loopback ports (a
 * separate process, so its memory is measured alone). It reports requests/s and p50/p99 latency
 * per route next to the same operations called in process (median and p99 of sequential calls),
 * the count of failed requests (which must be zero), and the server's RSS before and after (the
 * medians of its last 15 s of samples under the warm-up load and under the measured load).
 *
 * During the load, the bench process also asks GET /healthz one request at a time, one every
 * HEALTH_INTERVAL_MS (or right after the previous answer when that took longer), and reports
 * its latency: what any light request meets while the BBS+ work runs. The total throughput of
 * the two routes is compared with the single-thread in-process rate measured in the same run:
 * a verify-and-disclose pair takes medianVerify + medianDisclose on one thread, so one thread
 * serves 2 / (medianVerify + medianDisclose) requests per second of that mix (measured before the
 * server starts and again after it stops; the mean of both is the baseline).
 *
 * Acceptance (ACCEPTANCE, checked by bench/run.ts): /healthz p99 under 100 ms, throughput at
 * least 1.6 times the single-thread rate (2 cores), no failed request, RSS after / before at
 * most 1.2. The server runs its BBS+ calls on VC_WORKERS worker threads (the bench passes its
 * own VC_WORKERS through; unset: one per core); VC_WORKERS=0 measures the in-process server.
 *
 * The verified credential carries a holder-chosen nonce, not one issued by the verifier: a
 * verifier nonce is used up by its first successful verification (replay protection), while a
 * holder nonce is only checked, so one credential can be verified again and again.
 *
 * Run: node dist/bench/http.js [seconds]   (or VC_BENCH_HTTP_SECONDS)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/context.js';
import { deriveSelectiveDisclosure, issueSelectiveDisclosureCredential, verifySelectiveDisclosure } from '../src/core/sd/index.js';
import { median, percentile, round, timeRuns, runIfMain } from './stats.js';

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const REVEALED_KEYS = ['id', 'name', 'nationality'];
const VC_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'vc.js');
/** Acceptance: the server's RSS after the run stays within 20% of before. */
const MAX_MEMORY_GROWTH = 1.2;
/** Acceptance targets of the load run (2-core machine). */
export const ACCEPTANCE = { healthP99Ms: 100, minThroughputRatio: 1.6, failedRequests: 0, maxMemoryRatio: MAX_MEMORY_GROWTH } as const;
/** Interval of the RSS samples, and the final window of each run whose median is its RSS. */
const RSS_SAMPLE_MS = 500;
const RSS_WINDOW_MS = 15_000;
/** Interval of the GET /healthz samples during the load. */
const HEALTH_INTERVAL_MS = 75;

export interface HttpBenchOptions {
  /** Length of the load run in seconds (default VC_BENCH_HTTP_SECONDS or 30). */
  durationSeconds?: number;
  /** Concurrent connections per route (default 4). */
  connections?: number;
  /** Sequential in-process calls per operation for the baseline (default 30). */
  baselineRuns?: number;
  /** Progress lines (default: stderr). */
  progress?: (line: string) => void;
}

export interface RouteLoad {
  route: string;
  connections: number;
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number; mean: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

export interface InProcessBaseline {
  runs: number;
  medianMs: number;
  p99Ms: number;
  /** 1000 / median: what one sequential caller achieves. */
  sequentialPerSecond: number;
}

export interface HealthLatency {
  /** Sequential GET /healthz during the load, one every intervalMs at most. */
  intervalMs: number;
  samples: number;
  /** Answers other than a health report (200 or 503 with `status`), or no answer. */
  failed: number;
  latencyMs: { p50: number; p99: number; max: number };
}

export interface Throughput {
  /** Requests per second of both routes together during the load. */
  totalPerSecond: number;
  /**
   * What one thread does in process with the same mix: a verify and a disclose take
   * medianVerify + medianDisclose ms, so 2000 / (medianVerify + medianDisclose) requests/s; the
   * mean of that rate measured before the server starts and after it stopped, so that a drift of
   * the machine's speed during the run (a shared VM varies by 10-20% within a minute) biases the
   * ratio neither way.
   */
  singleThreadInProcessPerSecond: number;
  /** The single-thread rate before and after the load run. */
  singleThreadBeforeAfter: [number, number];
  /** totalPerSecond / singleThreadInProcessPerSecond; acceptance: at least 1.6 (2 cores). */
  ratio: number;
}

export interface HttpBenchReport {
  benchmark: 'http';
  machine: { cpus: number; cpuModel: string | undefined; node: string };
  /**
   * CPU use during the load run, in cores (Linux): the server process, this bench process (the
   * load generators and /healthz sampler) and everything else on the machine. `others` above a
   * few tenths of a core means the run was disturbed: its throughput is not comparable.
   */
  cpuDuringLoad?: { server: number; bench: number; others: number } | undefined;
  durationSeconds: number;
  /** `workers`: BBS+ worker threads of the server (VC_WORKERS; 0: on its event loop). */
  server: { command: string; roles: string[]; workers: number };
  load: { verify: RouteLoad; disclose: RouteLoad };
  /** GET /healthz latency during the load. */
  health: HealthLatency;
  throughput: Throughput;
  /** Sequential in-process calls before the server starts... */
  inProcess: { verify: InProcessBaseline; disclose: InProcessBaseline };
  /** ...and again once it has stopped (the machine's speed drifts; see Throughput). */
  inProcessAfter: { verify: InProcessBaseline; disclose: InProcessBaseline };
  /** The targets and whether this run met each. */
  acceptance: {
    targets: typeof ACCEPTANCE;
    healthP99: boolean;
    throughputRatio: boolean;
    zeroFailedRequests: boolean;
    memoryRatio: boolean;
    met: boolean;
  };
  /** Total failed requests (non-2xx answers, connection errors, timeouts) of both routes, warm-up included, and failed /healthz samples; must be 0. */
  failedRequests: number;
  zeroFailedRequests: boolean;
  /** Server log lines per status, counted from its request log (a cross-check of autocannon). */
  serverLoggedStatuses: Record<string, number>;
  memory: {
    /** RSS right after the server started listening (nothing loaded yet). */
    rssAtStartMiB: number;
    /** RSS after ten sequential calls of each route loaded every module they use. */
    rssAfterModulesMiB: number;
    /** Length of the warm-up run of the same load shape (its requests count as failed too when they fail). */
    warmupSeconds: number;
    /**
     * The "before": the median RSS over the last 15 s of the warm-up run, under load. Medians of
     * samples, not single readings: each thread's heap collects on its own, and a worker is
     * replaced every 500 calls (BBS_CALLS_PER_WORKER), so RSS swings by tens of MiB from one
     * second to the next with worker threads (see pointsMiB).
     */
    rssBeforeMiB: number;
    /** The "after": the median RSS over the last 15 s of the load run. */
    rssAfterMiB: number;
    /** rssAfter / rssBefore; acceptance: at most 1.2. */
    ratio: number;
    withinTwentyPercent: boolean;
    /** Single readings right after the warm-up and right after the load run, and their ratio. */
    pointsMiB: [number, number];
    pointRatio: number;
    /** RSS sampled every RSS_SAMPLE_MS during the run. */
    samplesMiB: number[];
  };
}

/** CPU seconds: of the whole machine (busy, all cores) and of one process (Linux /proc; undefined elsewhere). */
function cpuSeconds(pid: number): { machineBusy: number; process: number } | undefined {
  try {
    const ticks = 100; // USER_HZ on Linux
    const all = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = (all[3] ?? 0) + (all[4] ?? 0);
    const busy = all.slice(0, 8).reduce((sum, value) => sum + value, 0) - idle;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { machineBusy: busy / ticks, process: (Number(fields[11]) + Number(fields[12])) / ticks };
  } catch {
    return undefined;
  }
}

/** Resident set size of a process in MiB (Linux /proc, else ps). */
function rssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    if (kb !== undefined) return round(Number(kb) / 1024, 1);
  } catch {
    // Not Linux: fall through to ps.
  }
  return round(Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024, 1);
}

function baseline(durations: number[]): InProcessBaseline {
  const med = median(durations);
  return { runs: durations.length, medianMs: round(med, 2), p99Ms: round(percentile(durations, 99), 2), sequentialPerSecond: round(1000 / med, 1) };
}

interface ServerProcess {
  child: ChildProcess;
  urls: { issuer: string; holder: string; verifier: string };
  statuses: Record<string, number>;
  stop(): Promise<void>;
}

/** Starts `vc serve --role all --port 0` on `home` and resolves with its URLs once listening. */
async function startServerProcess(home: string, env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  // cwd is the home so no .env of the checkout is read: the bench controls the configuration.
  const child = spawn(process.execPath, [...(process.env.VC_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), VC_BIN, '--home', home, 'serve', '--role', 'all', '--port', '0'], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const statuses: Record<string, number> = {};
  let stderrTail = '';
  let pending = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    // One JSON line per request: count statuses; keep a short tail for error reports.
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const status = /"status":(\d{3})/.exec(line)?.[1];
      if (status !== undefined) statuses[status] = (statuses[status] ?? 0) + 1;
      else stderrTail = `${stderrTail}${line}\n`.slice(-2000);
    }
  });
  const urls = await new Promise<ServerProcess['urls']>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`vc serve did not start within 60 s: ${stderrTail}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n').find((l) => l.includes('"listening"'));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { listening: ServerProcess['urls'] }).listening);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`vc serve exited with ${String(code)}: ${stderrTail}`));
    });
  });
  return {
    child,
    urls,
    statuses,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const parsed = (await response.json()) as unknown;
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${JSON.stringify(parsed).slice(0, 300)}`);
  return parsed;
}

/**
 * Asks GET `url` one request at a time until `stopped()` says so, one every `intervalMs` at most;
 * resolves with each latency in ms and the count of answers that were not a health report.
 */
async function sampleHealth(url: string, intervalMs: number, stopped: () => boolean): Promise<{ latencies: number[]; failed: number }> {
  const latencies: number[] = [];
  let failed = 0;
  while (!stopped()) {
    const started = performance.now();
    try {
      const response = await fetch(url);
      const body = (await response.json()) as { status?: unknown };
      // 503 is readiness here (no chain node started, circuits maybe absent), still a report.
      if ((response.status !== 200 && response.status !== 503) || typeof body.status !== 'string') failed++;
    } catch {
      failed++;
    }
    const elapsed = performance.now() - started;
    latencies.push(elapsed);
    if (elapsed < intervalMs) await new Promise((resolve) => setTimeout(resolve, intervalMs - elapsed));
  }
  return { latencies, failed };
}

function routeLoad(route: string, result: import('autocannon').Result): RouteLoad {
  return {
    route,
    connections: result.connections,
    requests: result['2xx'] + result.non2xx,
    requestsPerSecond: round((result['2xx'] + result.non2xx) / result.duration, 1),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, mean: round(result.latency.mean, 1), max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** Runs the load test and the in-process baseline; see the file comment. */
export async function runHttpBench(options: HttpBenchOptions = {}): Promise<HttpBenchReport> {
  const envSeconds = Number(process.env.VC_BENCH_HTTP_SECONDS);
  const durationSeconds = options.durationSeconds ?? (Number.isFinite(envSeconds) && envSeconds > 0 ? envSeconds : 30);
  const connections = options.connections ?? 4;
  const baselineRuns = options.baselineRuns ?? 30;
  const progress = options.progress ?? ((line: string) => process.stderr.write(`[http] ${line}\n`));
  const vars = { IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_TRUSTED_ISSUERS: '*' };
  // The server's worker threads: the bench's own VC_WORKERS, else the server's default (one per core).
  const workersVariable = process.env.VC_WORKERS?.trim();
  const workers = workersVariable === undefined || workersVariable === '' ? os.availableParallelism() : Number(workersVariable);
  const home = mkdtempSync(path.join(os.tmpdir(), 'vc-bench-http-'));
  let server: ServerProcess | undefined;
  try {
    // In-process baseline first, alone on the machine; it also leaves the holder's credential in
    // the wallet the server then serves. It runs again once the server has stopped (see Throughput).
    const measureInProcess = async (issue: boolean): Promise<HttpBenchReport['inProcess']> => {
      progress(`in-process baseline: ${baselineRuns} sequential calls of each operation`);
      const ctx = new Context({ config: parseConfig(vars, home) });
      try {
        if (issue) await issueSelectiveDisclosureCredential(ctx, {});
        const disclose = () => deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: REVEALED_KEYS });
        const { vc } = await disclose();
        const verify = async () => {
          const result = await verifySelectiveDisclosure(ctx, { vc: vc as Record<string, unknown> });
          if (!result.verified) throw new Error(`in-process verification failed: ${result.message}`);
        };
        return { disclose: baseline(await timeRuns(disclose, baselineRuns, 2)), verify: baseline(await timeRuns(verify, baselineRuns, 2)) };
      } finally {
        await ctx.close();
      }
    };
    const inProcess = await measureInProcess(true);

    progress('starting vc serve --role all --port 0 (child process)');
    server = await startServerProcess(home, { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...vars, ...(workersVariable === undefined ? {} : { VC_WORKERS: workersVariable }) });
    const rssAtStart = rssMiB(server.child.pid!);

    const discloseUrl = `${server.urls.holder}/generate-selective-disclosure-vc`;
    const verifyUrl = `${server.urls.verifier}/verify-vc`;
    const discloseBody = JSON.stringify({ credentialType: 'PassportCredential', selectiveDisclosureKeys: REVEALED_KEYS });
    const { vc } = (await postJson(discloseUrl, JSON.parse(discloseBody))) as { vc: Record<string, unknown> };
    const verifyBody = JSON.stringify({ vc });
    // Sequential calls first: they load every module and fill the caches the routes use.
    for (let i = 0; i < 10; i++) {
      await postJson(discloseUrl, JSON.parse(discloseBody));
      const verified = (await postJson(verifyUrl, { vc })) as { verified: boolean; message: string };
      if (!verified.verified) throw new Error(`the server did not verify the disclosed credential: ${verified.message}`);
    }
    const rssAfterModules = rssMiB(server.child.pid!);

    const { default: autocannon } = await import('autocannon');
    const load = (url: string, body: string, seconds: number) =>
      autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections, duration: seconds, timeout: 30 });
    // A run of the same shape first: the heaps and the BBS+ WebAssembly memories (which can only
    // grow) reach the size this concurrency needs, so "before" is the steady state and the
    // comparison with "after" shows growth over time, i.e. leaks. With worker threads there are
    // as many heaps and WebAssembly instances as threads, each growing to its own steady size:
    // that takes 15-30 s of this load (a 5 s warm-up left "before" 60-80 MiB short of it), so the
    // warm-up is as long as the run (at most 30 s).
    const warmupSeconds = Math.max(2, Math.min(30, durationSeconds));
    progress(`warm-up: ${warmupSeconds} s of the same load`);
    const sampleRss = (into: Array<{ at: number; mib: number }>) => setInterval(() => into.push({ at: performance.now(), mib: rssMiB(server!.child.pid!) }), RSS_SAMPLE_MS);
    const warmupSamples: Array<{ at: number; mib: number }> = [];
    const warmupSampler = sampleRss(warmupSamples);
    let warmup: import('autocannon').Result[];
    try {
      warmup = await Promise.all([load(verifyUrl, verifyBody, warmupSeconds), load(discloseUrl, discloseBody, warmupSeconds)]);
    } finally {
      clearInterval(warmupSampler);
    }
    const warmupFailures = warmup.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0);
    const rssBeforePoint = rssMiB(server.child.pid!);
    // autocannon stops with requests in flight: the server still runs their BBS+ calls. One
    // request waits behind them (FIFO), so the measured run starts on an empty queue.
    await postJson(verifyUrl, { vc });

    progress(`load: ${durationSeconds} s, ${connections} connections on each route, both routes at once`);
    const loadSamples: Array<{ at: number; mib: number }> = [];
    const sampler = sampleRss(loadSamples);
    let verifyResult: import('autocannon').Result;
    let discloseResult: import('autocannon').Result;
    let loadRunning = true;
    const cpuBefore = cpuSeconds(server.child.pid!);
    const benchCpuBefore = process.cpuUsage();
    const loadStarted = performance.now();
    const healthSampling = sampleHealth(`${server.urls.verifier}/healthz`, HEALTH_INTERVAL_MS, () => !loadRunning);
    try {
      [verifyResult, discloseResult] = await Promise.all([load(verifyUrl, verifyBody, durationSeconds), load(discloseUrl, discloseBody, durationSeconds)]);
    } finally {
      loadRunning = false;
      clearInterval(sampler);
    }
    const healthSamples = await healthSampling;
    const cpuAfter = cpuSeconds(server.child.pid!);
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const cpuDuringLoad =
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : (() => {
            const serverCores = (cpuAfter.process - cpuBefore.process) / loadSeconds;
            const benchCores = (benchCpu.user + benchCpu.system) / 1e6 / loadSeconds;
            const machineCores = (cpuAfter.machineBusy - cpuBefore.machineBusy) / loadSeconds;
            return { server: round(serverCores, 2), bench: round(benchCores, 2), others: round(Math.max(0, machineCores - serverCores - benchCores), 2) };
          })();
    const rssAfterPoint = rssMiB(server.child.pid!);
    // Steady-state RSS under the load: the median of the last RSS_WINDOW_MS of samples of each run.
    const lastWindow = (samples: Array<{ at: number; mib: number }>, fallback: number): number => {
      const end = samples.at(-1)?.at ?? 0;
      const window = samples.filter((sample) => sample.at >= end - RSS_WINDOW_MS).map((sample) => sample.mib);
      return window.length === 0 ? fallback : round(median(window), 1);
    };
    const rssBefore = lastWindow(warmupSamples, rssBeforePoint);
    const rssAfter = lastWindow(loadSamples, rssAfterPoint);

    const verifyLoad = routeLoad('POST /verify-vc', verifyResult);
    const discloseLoad = routeLoad('POST /generate-selective-disclosure-vc', discloseResult);
    const failedRequests = [verifyLoad, discloseLoad].reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0) + warmupFailures + healthSamples.failed;
    const ratio = round(rssAfter / rssBefore, 3);
    const health: HealthLatency = {
      intervalMs: HEALTH_INTERVAL_MS,
      samples: healthSamples.latencies.length,
      failed: healthSamples.failed,
      latencyMs: {
        p50: round(median(healthSamples.latencies), 1),
        p99: round(percentile(healthSamples.latencies, 99), 1),
        max: round(Math.max(...healthSamples.latencies), 1),
      },
    };
    await server.stop();
    const inProcessAfter = await measureInProcess(false);
    const totalPerSecond = (verifyResult['2xx'] + verifyResult.non2xx) / verifyResult.duration + (discloseResult['2xx'] + discloseResult.non2xx) / discloseResult.duration;
    const pairRate = (baselines: HttpBenchReport['inProcess']): number => 2000 / (baselines.verify.medianMs + baselines.disclose.medianMs);
    const singleThread = (pairRate(inProcess) + pairRate(inProcessAfter)) / 2;
    const throughput: Throughput = {
      totalPerSecond: round(totalPerSecond, 2),
      singleThreadInProcessPerSecond: round(singleThread, 2),
      singleThreadBeforeAfter: [round(pairRate(inProcess), 2), round(pairRate(inProcessAfter), 2)],
      ratio: round(totalPerSecond / singleThread, 2),
    };
    const acceptance = {
      targets: ACCEPTANCE,
      healthP99: health.latencyMs.p99 < ACCEPTANCE.healthP99Ms,
      throughputRatio: throughput.ratio >= ACCEPTANCE.minThroughputRatio,
      zeroFailedRequests: failedRequests === ACCEPTANCE.failedRequests,
      memoryRatio: ratio <= ACCEPTANCE.maxMemoryRatio,
      met: false,
    };
    acceptance.met = acceptance.healthP99 && acceptance.throughputRatio && acceptance.zeroFailedRequests && acceptance.memoryRatio;
    progress(
      `done: verify ${verifyLoad.requestsPerSecond}/s, disclose ${discloseLoad.requestsPerSecond}/s (${throughput.ratio}x the single-thread rate), /healthz p99 ${health.latencyMs.p99} ms, ${failedRequests} failed, RSS ${rssBefore} -> ${rssAfter} MiB`,
    );

    return {
      benchmark: 'http',
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
      cpuDuringLoad,
      durationSeconds,
      server: { command: 'vc serve --role all --port 0', roles: ['issuer', 'holder', 'verifier'], workers },
      load: { verify: verifyLoad, disclose: discloseLoad },
      health,
      throughput,
      inProcess,
      inProcessAfter,
      acceptance,
      failedRequests,
      zeroFailedRequests: failedRequests === 0,
      serverLoggedStatuses: { ...server.statuses },
      memory: {
        rssAtStartMiB: rssAtStart,
        rssAfterModulesMiB: rssAfterModules,
        warmupSeconds,
        rssBeforeMiB: rssBefore,
        rssAfterMiB: rssAfter,
        ratio,
        withinTwentyPercent: ratio <= MAX_MEMORY_GROWTH,
        pointsMiB: [rssBeforePoint, rssAfterPoint],
        pointRatio: round(rssAfterPoint / rssBeforePoint, 3),
        samplesMiB: loadSamples.map((sample) => sample.mib),
      },
    };
  } finally {
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

runIfMain(
  import.meta.url,
  (seconds) => runHttpBench(seconds !== undefined && seconds > 0 ? { durationSeconds: seconds } : {}),
  (report) => !report.acceptance.met,
);
