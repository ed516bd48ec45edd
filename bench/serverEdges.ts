/**
 * The durations the tests used to assert, measured here instead (a test asserts what happens, not
 * how long it takes on the machine at hand). Each figure comes with a baseline measured in the
 * same run, and a ratio to it:
 *
 * - slowBody: a POST whose body trickles in (4 bytes every 200 ms) against `vc serve` with
 *   VC_BODY_TIMEOUT=2: latency of its 408 from the server's 100 Continue, vs the timeout
 *   (test/http/edges.test.ts; Node checks timeouts every second, so 1 to 1.5 x is expected).
 * - fiftySlowBodies: 50 such bodies at once: time until the server closed them all, vs the
 *   timeout; GET /healthz meanwhile (sequential, one every 50 ms), vs /healthz on the idle server.
 * - saturatedPool: GET /healthz while a burst of POST /verify-vc larger than its queue keeps the
 *   one BBS+ worker of an in-process server busy (test/workers/server.test.ts), vs /healthz on
 *   the same idle server.
 * - jsonParser: the strict JSON parser (src/jsonInput.ts) on a 1 MiB body and on an object of
 *   100,000 keys, vs JSON.parse on the same text; and its time per byte of each input against an
 *   eighth of it, divided by the same figure of JSON.parse (about 1 for a linear scan; a quadratic
 *   scan gives about 8) (test/jsonInput.test.ts).
 * - circuitCache: ensureCircuits in a fresh context on a cache that already holds the fixture
 *   circuit (a no-op), vs its first (cold) build in the same run (test/circuits/pipeline.test.ts).
 * - cliRefusals: `vc holder import-sd --credential X` refusing /dev/zero, a FIFO and a directory,
 *   vs `vc --version` (test/cli/operationCommand.test.ts).
 *
 * Acceptance (checked by bench/run.ts): the bounds those tests asserted, as ratios.
 * Run: node dist/bench/serverEdges.js [runs]
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCircuits } from '../src/circuits/build.js';
import { releaseBn128 } from '../src/circuits/curve.js';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/context.js';
import { deriveSelectiveDisclosure, issueSelectiveDisclosureCredential } from '../src/core/sd/index.js';
import { keepHeldCredential } from '../src/core/holder/holderStore.js';
import { startServer } from '../src/http/server.js';
import { parseJsonText } from '../src/jsonInput.js';
import { QUEUE_PER_WORKER } from '../src/workers/pool.js';
import { median, percentile, round, runIfMain, timeRuns } from './stats.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const VC_BIN = path.resolve(HERE, '..', 'bin', 'vc.js');
/** The repository root (dist/bench -> ../..), for the test fixture circuit. */
const ROOT = path.resolve(HERE, '..', '..');
const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const BODY_TIMEOUT_SECONDS = 2;
const SLOW_BODY_HEAD = 'POST /node HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n';

/** The bounds the tests used to assert, as ratios to this run's baselines. */
export const ACCEPTANCE = {
  /** 408 of a slow body: 1900 to 4500 ms for a 2 s timeout. */
  slowBodyVsTimeout: { min: 0.95, max: 2.25 },
  /** 50 slow bodies closed within 5.5 s for a 2 s timeout. */
  fiftyClosedVsTimeout: 2.75,
  /** The worst /healthz answer meanwhile under 2 s: under the timeout. */
  healthMaxVsTimeout: 1,
  /** A linear scan: the growth of the time per byte from an eighth of an input to all of it at most 3 times JSON.parse's. */
  parserScalingVsJsonParse: 3,
  /** The CLI's refusals take about as long as `vc --version` (they read nothing). */
  cliRefusalVsVersion: 3,
} as const;

export interface ServerEdgesOptions {
  /** Repetitions of the short measurements (default 5). */
  runs?: number;
  progress?: (line: string) => void;
}

type Latency = { p50: number; p99: number; max: number; samples: number };

function latency(values: number[]): Latency {
  if (values.length === 0) return { p50: 0, p99: 0, max: 0, samples: 0 };
  return { p50: round(median(values), 2), p99: round(percentile(values, 99), 2), max: round(Math.max(...values), 2), samples: values.length };
}

const now = (): number => performance.now();

async function healthOnce(url: string): Promise<number> {
  const started = now();
  const response = await fetch(url);
  await response.json();
  if (response.status !== 200 && response.status !== 503) throw new Error(`GET /healthz answered ${response.status}`);
  return now() - started;
}

/** Latencies of `count` sequential GET /healthz on an idle server (after two unmeasured ones). */
async function idleHealth(url: string, count: number): Promise<number[]> {
  for (let i = 0; i < 2; i++) await healthOnce(url);
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) latencies.push(await healthOnce(url));
  return latencies;
}

/**
 * One slow body: resolves, once the server closed the connection, with the ms from its
 * 100 Continue to its final answer and the status of that answer.
 */
function slowBody(port: number): Promise<{ fromContinueMs: number; status: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let continuedAt: number | undefined;
    let answeredAt: number | undefined;
    let ticker: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => socket.destroy(new Error('no answer within 60 s')), 60_000);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (continuedAt === undefined && received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        continuedAt = now();
        socket.write('{"a":"');
        ticker = setInterval(() => socket.write('aaaa'), 200);
      }
      if (answeredAt === undefined && /^HTTP\/1\.1 [2-5]\d\d /m.test(received)) {
        answeredAt = now();
        clearInterval(ticker);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(guard);
      clearInterval(ticker);
      if (continuedAt === undefined || answeredAt === undefined) return reject(new Error(`a slow body got no answer: ${JSON.stringify(received.slice(0, 200))}`));
      const status = Number(/^HTTP\/1\.1 ([2-5]\d\d) /m.exec(received)?.[1] ?? 0);
      resolve({ fromContinueMs: answeredAt - continuedAt, status });
    });
    socket.write(SLOW_BODY_HEAD);
  });
}

async function startVcServe(home: string): Promise<{ child: ChildProcess; url: string; port: number }> {
  const child = spawn(process.execPath, [VC_BIN, '--home', home, 'serve', '--role', 'issuer', '--port', '0'], {
    cwd: path.dirname(home),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', VC_BODY_TIMEOUT: String(BODY_TIMEOUT_SECONDS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n').find((l) => l.includes('"listening"'));
      if (line !== undefined) resolve((JSON.parse(line) as { listening: { issuer: string } }).listening.issuer);
    });
    child.once('exit', (code) => reject(new Error(`vc serve exited with ${String(code)}: ${stderr}`)));
    child.once('error', reject);
  });
  return { child, url, port: Number(new URL(url).port) };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The slow-body figures against a real `vc serve --role issuer` with VC_BODY_TIMEOUT=2. */
async function benchSlowBodies(runs: number, work: string): Promise<Record<string, unknown>> {
  const server = await startVcServe(path.join(work, 'serve-home'));
  const timeoutMs = BODY_TIMEOUT_SECONDS * 1000;
  try {
    const health = `${server.url}/healthz`;
    const idle = await idleHealth(health, 30);
    const single: number[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < Math.min(runs, 3); i++) {
      const result = await slowBody(server.port);
      single.push(result.fromContinueMs);
      statuses.push(result.status);
    }
    // Fifty at once, with /healthz asked one at a time meanwhile.
    const started = now();
    let done = false;
    const fifty = Promise.all(Array.from({ length: 50 }, () => slowBody(server.port))).finally(() => (done = true));
    const during: number[] = [];
    while (!done) {
      during.push(await healthOnce(health));
      if (!done) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const results = await fifty;
    const allClosedMs = now() - started;
    statuses.push(...results.map((result) => result.status));
    const idleFigures = latency(idle);
    const duringFigures = latency(during);
    return {
      bodyTimeoutMs: timeoutMs,
      idleHealthMs: idleFigures,
      slowBody: { latencyFromContinueMs: single.map((ms) => round(ms, 1)), medianVsTimeout: round(median(single) / timeoutMs, 3) },
      fiftySlowBodies: {
        allClosedMs: round(allClosedMs, 1),
        allClosedVsTimeout: round(allClosedMs / timeoutMs, 3),
        latencyFromContinueMs: latency(results.map((result) => result.fromContinueMs)),
        healthMeanwhileMs: duringFigures,
        healthP50VsIdle: round(duringFigures.p50 / idleFigures.p50, 2),
        healthMaxVsTimeout: round(duringFigures.max / timeoutMs, 3),
      },
      statuses: Object.fromEntries([...new Set(statuses)].map((status) => [status, statuses.filter((s) => s === status).length])),
    };
  } finally {
    await stop(server.child);
  }
}

/** /healthz of an in-process server whose one BBS+ worker is saturated by a burst of verifications. */
async function benchSaturatedPool(rounds: number, work: string): Promise<Record<string, unknown>> {
  const ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE, CIRCUITS_PATH: work, VC_WORKERS: '1' }, path.join(work, 'pool-home')) });
  keepHeldCredential(ctx, await issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:alice' }), { kind: 'bbs2020', source: 'issued' });
  const { vc } = await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['id', 'name'], nonce: Buffer.alloc(32, 4).toString('base64') });
  const server = await startServer(ctx, { roles: ['verifier'], port: 0 });
  try {
    const base = server.urls.verifier!;
    const verify = async (): Promise<number> => {
      const response = await fetch(`${base}/verify-vc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ vc }) });
      await response.arrayBuffer();
      return response.status;
    };
    const idle = await idleHealth(`${base}/healthz`, 30);
    // Each verification makes two pool calls: 3 x (1 + queue) requests at once overflow it.
    const burst = 3 * (1 + QUEUE_PER_WORKER);
    const during: number[] = [];
    const burstMs: number[] = [];
    const statuses: number[] = [];
    for (let round = 0; round < rounds; round++) {
      let done = false;
      const started = now();
      const all = Promise.all(Array.from({ length: burst }, verify)).finally(() => (done = true));
      while (!done) {
        during.push(await healthOnce(`${base}/healthz`));
        if (!done) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      statuses.push(...(await all));
      burstMs.push(now() - started);
    }
    const idleFigures = latency(idle);
    const duringFigures = latency(during);
    return {
      workers: server.workers,
      burst,
      rounds,
      burstMs: latency(burstMs),
      statuses: Object.fromEntries([...new Set(statuses)].map((status) => [status, statuses.filter((s) => s === status).length])),
      idleHealthMs: idleFigures,
      healthWhileSaturatedMs: duringFigures,
      healthP50VsIdle: round(duringFigures.p50 / idleFigures.p50, 2),
      healthMaxVsBurst: round(duringFigures.max / median(burstMs), 3),
    };
  } finally {
    await server.close();
    await ctx.close();
  }
}

/** The strict parser vs JSON.parse, and its time per byte against an eighth of the input. */
async function benchJsonParser(runs: number): Promise<Record<string, unknown>> {
  const subject = { id: 'did:example:123', name: 'Ada Lovelace', nationality: 'GBR', birthDate: 18151210, tags: [1, 2.5, 'x', true, null], address: { city: 'London' } };
  const deep = (count: number): string => JSON.stringify({ vc: { credentialSubject: { items: Array.from({ length: count }, (_, n) => ({ ...subject, n })) } } });
  const wide = (count: number): string => JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, k) => [`key${k}`, k])));
  let items = 500;
  while (deep(items).length < 1 << 20) items += 500;
  const inputs = { body1MiB: [deep(items), deep(Math.ceil(items / 8))], object100kKeys: [wide(100_000), wide(12_500)] } as const;
  const result: Record<string, unknown> = {};
  for (const [name, [large, small]] of Object.entries(inputs)) {
    const strict = median(await timeRuns(() => parseJsonText(large, 'request body'), runs));
    const native = median(await timeRuns(() => JSON.parse(large) as unknown, runs));
    // The small input is quick: more runs for a stable median.
    const strictSmall = median(await timeRuns(() => parseJsonText(small, 'request body'), 4 * runs));
    const nativeSmall = median(await timeRuns(() => JSON.parse(small) as unknown, 4 * runs));
    const strictScaling = strict / large.length / (strictSmall / small.length);
    const nativeScaling = native / large.length / (nativeSmall / small.length);
    result[name] = {
      bytes: large.length,
      strictMs: round(strict, 2),
      jsonParseMs: round(native, 2),
      strictVsJsonParse: round(strict / native, 2),
      eighthBytes: small.length,
      eighthStrictMs: round(strictSmall, 2),
      eighthJsonParseMs: round(nativeSmall, 2),
      perByteVsEighth: { strict: round(strictScaling, 2), jsonParse: round(nativeScaling, 2) },
      // Allocation and garbage collection grow with the input for both parsers alike: this ratio
      // is what the scan itself adds (about 1 for a linear scan, about 8 for a quadratic one).
      scalingVsJsonParse: round(strictScaling / nativeScaling, 2),
    };
  }
  return result;
}

/** The cached build of the fixture circuit (a no-op) vs its cold build, in a fresh cache. */
async function benchCircuitCache(runs: number, work: string): Promise<Record<string, unknown>> {
  const fixture = { id: 'pipelineFixture', main: path.join(ROOT, 'test', 'circuits', 'fixtures', 'pipelineFixture.circom') };
  const cacheDir = path.join(work, 'circuits-cache');
  const ctx = new Context({ config: parseConfig({}, path.join(work, 'circuits-home')) });
  try {
    const started = now();
    const first = await ensureCircuits(ctx, { cacheDir, circuits: [fixture] });
    const coldMs = now() - started;
    if (first.built.length !== 1) throw new Error(`the cold build built ${JSON.stringify(first.built)}`);
    // A fresh context each time, as a new command or server has (a context keeps what it found).
    const noOp = await timeRuns(async () => {
      const fresh = new Context({ config: parseConfig({}, path.join(work, 'circuits-home')) });
      try {
        const again = await ensureCircuits(fresh, { cacheDir, circuits: [fixture] });
        if (again.built.length !== 0) throw new Error(`the cached build built ${JSON.stringify(again.built)}`);
      } finally {
        await fresh.close();
      }
    }, runs);
    return { circuit: fixture.id, coldBuildMs: round(coldMs, 1), noOpMs: latency(noOp), noOpVsColdBuild: Number((median(noOp) / coldMs).toPrecision(3)) };
  } finally {
    await ctx.close();
    await releaseBn128();
  }
}

/** `vc holder import-sd --credential X` refusing what is not a regular file, vs `vc --version`. */
async function benchCliRefusals(runs: number, work: string): Promise<Record<string, unknown>> {
  const fifo = path.join(work, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const home = path.join(work, 'cli-home');
  const run = (args: string[], expected: number): void => {
    const result = spawnSync(process.execPath, [VC_BIN, '--home', home, ...args], { stdio: 'ignore', timeout: 60_000 });
    if (result.status !== expected) throw new Error(`vc ${args.join(' ')} exited ${String(result.status ?? result.signal)}, not ${expected}`);
  };
  const version = median(await timeRuns(() => run(['--version'], 0), runs));
  const refusals: Record<string, unknown> = {};
  for (const [name, file] of Object.entries({ devZero: '/dev/zero', fifo, directory: work })) {
    const ms = median(await timeRuns(() => run(['--json', 'holder', 'import-sd', '--credential', file], 2), runs));
    refusals[name] = { ms: round(ms, 1), vsVersion: round(ms / version, 2) };
  }
  return { versionMs: round(version, 1), refusals };
}

export interface ServerEdgesReport {
  benchmark: 'serverEdges';
  machine: { cpus: number; node: string; loadAverage: number[] };
  runs: number;
  slowBodies: Record<string, unknown>;
  saturatedPool: Record<string, unknown>;
  jsonParser: Record<string, unknown>;
  circuitCache: Record<string, unknown>;
  cliRefusals: Record<string, unknown>;
  acceptance: { targets: typeof ACCEPTANCE; problems: string[]; met: boolean };
}

/** What misses the bounds the tests used to assert. */
function problemsOf(report: Omit<ServerEdgesReport, 'acceptance'>): string[] {
  const problems: string[] = [];
  const slow = report.slowBodies as { slowBody: { medianVsTimeout: number }; fiftySlowBodies: { allClosedVsTimeout: number; healthMaxVsTimeout: number }; statuses: Record<string, number> };
  const { slowBodyVsTimeout } = ACCEPTANCE;
  if (!(slow.slowBody.medianVsTimeout >= slowBodyVsTimeout.min && slow.slowBody.medianVsTimeout <= slowBodyVsTimeout.max)) problems.push(`a slow body's 408 came at ${slow.slowBody.medianVsTimeout} x VC_BODY_TIMEOUT`);
  if (!(slow.fiftySlowBodies.allClosedVsTimeout < ACCEPTANCE.fiftyClosedVsTimeout)) problems.push(`50 slow bodies closed at ${slow.fiftySlowBodies.allClosedVsTimeout} x VC_BODY_TIMEOUT`);
  if (!(slow.fiftySlowBodies.healthMaxVsTimeout < ACCEPTANCE.healthMaxVsTimeout)) problems.push(`/healthz took up to ${slow.fiftySlowBodies.healthMaxVsTimeout} x VC_BODY_TIMEOUT meanwhile`);
  if (Object.keys(slow.statuses).some((status) => status !== '408')) problems.push(`slow bodies answered ${JSON.stringify(slow.statuses)}`);
  for (const [name, figures] of Object.entries(report.jsonParser as Record<string, { scalingVsJsonParse: number }>)) {
    if (!(figures.scalingVsJsonParse <= ACCEPTANCE.parserScalingVsJsonParse)) problems.push(`the strict parser's time per byte grows ${figures.scalingVsJsonParse} x as much as JSON.parse's from an eighth of ${name} to all of it`);
  }
  for (const [name, figures] of Object.entries((report.cliRefusals as { refusals: Record<string, { vsVersion: number }> }).refusals)) {
    if (!(figures.vsVersion <= ACCEPTANCE.cliRefusalVsVersion)) problems.push(`the CLI took ${figures.vsVersion} x vc --version to refuse ${name}`);
  }
  return problems;
}

export async function runServerEdgesBench(options: ServerEdgesOptions = {}): Promise<ServerEdgesReport> {
  const runs = options.runs ?? 5;
  const progress = options.progress ?? ((line: string) => process.stderr.write(`[serverEdges] ${line}\n`));
  const work = mkdtempSync(path.join(os.tmpdir(), 'vc-bench-edges-'));
  try {
    progress('slow bodies against vc serve (VC_BODY_TIMEOUT=2)');
    const slowBodies = await benchSlowBodies(runs, work);
    progress('/healthz while the BBS+ pool is saturated');
    const saturatedPool = await benchSaturatedPool(Math.max(1, Math.min(runs, 3)), work);
    progress('the strict JSON parser');
    const jsonParser = await benchJsonParser(runs);
    progress('the cached circuit build');
    const circuitCache = await benchCircuitCache(runs, work);
    progress('the CLI refusing files that are not regular');
    const cliRefusals = await benchCliRefusals(runs, work);
    const report = {
      benchmark: 'serverEdges' as const,
      machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((l) => round(l, 2)) },
      runs,
      slowBodies,
      saturatedPool,
      jsonParser,
      circuitCache,
      cliRefusals,
    };
    const problems = problemsOf(report);
    return { ...report, acceptance: { targets: ACCEPTANCE, problems, met: problems.length === 0 } };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, (runs) => runServerEdgesBench({ runs: runs ?? 5 }), (report) => !report.acceptance.met);
