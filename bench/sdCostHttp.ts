/**
 * The cost limits of bbs-2023 under load: `vc serve --role all` (a child process, BBS+ work on its
 * worker threads) while four clients send POST /credentials/verify bodies, and GET /healthz is
 * asked one request at a time every 75 ms, as in bench/http.ts. Two phases:
 * - `oversized`: the issue's attack, a ~900-member bbs-2023 credential (a derived proof whose
 *   subject lists 890 names): refused with 413 before any JSON-LD work;
 * - `largestAccepted`: the most work the route accepts, a credential with the issuer's base proof
 *   and 64 names (the signing limit; verifying a base proof derives everything, then verifies):
 *   served, and the pool is never held for long.
 * The baseline in the same run: /healthz alone on the idle server. Acceptance: /healthz p99 under
 * 100 ms in both phases, every oversized request refused with 413, every accepted one verified.
 * Run: node dist/bench/sdCostHttp.js [seconds per phase]   (default 15)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { latencyFigures, sampleHealth, startServerProcess, type RouteLoad, type ServerProcess } from './http.js';
import { countMembers } from '../src/core/sd/sdCost.js';
import { median, percentile, round, runIfMain } from './stats.js';

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const HEALTH_INTERVAL_MS = 75;
const CONNECTIONS = 4;
export const ACCEPTANCE = { healthP99Ms: 100 } as const;

type Json = Record<string, unknown>;

export interface PhaseReport {
  body: { members: number; bytes: number; proof: 'base' | 'derived' };
  connections: number;
  requests: number;
  statuses: Record<string, number>;
  latencyMs: RouteLoad['latencyMs'];
  health: { samples: number; failed: number; latencyMs: { p50: number; p99: number; max: number } };
}

export interface SdCostHttpReport {
  benchmark: 'sdCostHttp';
  machine: { cpus: number; cpuModel: string | undefined; node: string };
  secondsPerPhase: number;
  /** /healthz alone, on the idle server (the baseline of the same run). */
  idleHealth: { samples: number; latencyMs: { p50: number; p99: number; max: number } };
  oversized: PhaseReport;
  largestAccepted: PhaseReport;
  /** Health p99 under each phase / the idle p99. */
  ratios: { oversized: number; largestAccepted: number };
  acceptance: { targets: typeof ACCEPTANCE; healthP99: boolean; oversizedRefused: boolean; acceptedServed: boolean; met: boolean };
}

async function post(url: string, body: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Json };
}

function names(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `name ${index}`);
}

function healthFigures(latencies: number[]): { p50: number; p99: number; max: number } {
  return { p50: round(median(latencies), 1), p99: round(percentile(latencies, 99), 1), max: round(Math.max(...latencies), 1) };
}

/** Runs the two phases and returns the JSON report. */
export async function runSdCostHttpBench(options: { seconds?: number; progress?: (line: string) => void } = {}): Promise<SdCostHttpReport> {
  const seconds = options.seconds ?? 15;
  const progress = options.progress ?? ((line: string) => process.stderr.write(`[sdCostHttp] ${line}\n`));
  const home = mkdtempSync(path.join(os.tmpdir(), 'vc-bench-sdcost-http-'));
  let server: ServerProcess | undefined;
  try {
    server = await startServerProcess(home, { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_TRUSTED_ISSUERS: '*' });
    const { urls } = server;
    const did = ((await (await fetch(`${urls.issuer}/bbs-key`)).json()) as { bbs2023: { did: string } }).bbs2023.did;
    const credential = (count: number): Json => ({
      '@context': ['https://www.w3.org/ns/credentials/v2', 'https://w3id.org/vdl/v1'],
      type: ['VerifiableCredential', 'Iso18013DriversLicenseCredential'],
      issuer: did,
      credentialSubject: { id: 'did:example:bob', name: names(count) },
    });
    // The largest credential the issuer signs: a base proof of 64 members in all.
    let count = 64;
    while (countMembers(credential(count)).document > 64) count--;
    const issued = await post(`${urls.issuer}/credentials/issue`, { credential: credential(count) });
    if (issued.status !== 201) throw new Error(`issue: ${issued.status} ${JSON.stringify(issued.body).slice(0, 300)}`);
    const signed = issued.body.verifiableCredential as Json;
    const derived = await post(`${urls.holder}/credentials/derive`, { verifiableCredential: signed, options: { selectivePointers: ['/credentialSubject/name/0'] } });
    if (derived.status !== 201) throw new Error(`derive: ${derived.status} ${JSON.stringify(derived.body).slice(0, 300)}`);
    const disclosed = derived.body.verifiableCredential as Json;
    const oversized: Json = { ...disclosed, credentialSubject: { ...(disclosed.credentialSubject as Json), name: names(890) } };
    const verifyUrl = `${urls.verifier}/credentials/verify`;
    const healthUrl = `${urls.verifier}/healthz`;

    progress('idle /healthz baseline');
    let idleDone = false;
    const idleTimer = setTimeout(() => (idleDone = true), Math.min(5, seconds) * 1000);
    const idle = await sampleHealth(healthUrl, HEALTH_INTERVAL_MS, () => idleDone);
    clearTimeout(idleTimer);

    const { default: autocannon } = await import('autocannon');
    const phase = async (name: string, document: Json, proof: 'base' | 'derived'): Promise<PhaseReport> => {
      const body = JSON.stringify({ verifiableCredential: document });
      progress(`${name}: ${seconds} s, ${CONNECTIONS} clients, ${Buffer.byteLength(body)} bytes a body`);
      const statuses: Record<string, number> = {};
      const latencies: number[] = [];
      let running = true;
      const health = sampleHealth(healthUrl, HEALTH_INTERVAL_MS, () => !running);
      try {
        await new Promise<void>((resolve, reject) => {
          const instance = autocannon({ url: verifyUrl, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: CONNECTIONS, duration: seconds, timeout: 60 }, (error: unknown) => {
            if (error !== null && error !== undefined) reject(error instanceof Error ? error : new Error(String(error)));
            else resolve();
          });
          instance.on('response', (_client, status, _bytes, responseTime) => {
            statuses[String(status)] = (statuses[String(status)] ?? 0) + 1;
            latencies.push(responseTime);
          });
        });
      } finally {
        running = false;
      }
      const sampled = await health;
      return {
        body: { members: countMembers(document).document, bytes: Buffer.byteLength(body), proof },
        connections: CONNECTIONS,
        requests: latencies.length,
        statuses,
        latencyMs: latencyFigures(latencies),
        health: { samples: sampled.latencies.length, failed: sampled.failed, latencyMs: healthFigures(sampled.latencies) },
      };
    };
    const refused = await phase('oversized', oversized, 'derived');
    const accepted = await phase('largestAccepted', signed, 'base');
    const idleP99 = percentile(idle.latencies, 99);
    const healthP99 = refused.health.latencyMs.p99 < ACCEPTANCE.healthP99Ms && accepted.health.latencyMs.p99 < ACCEPTANCE.healthP99Ms;
    const oversizedRefused = refused.requests > 0 && refused.statuses['413'] === refused.requests;
    const acceptedServed = accepted.requests > 0 && accepted.statuses['200'] === accepted.requests;
    progress(`done: /healthz p99 ${refused.health.latencyMs.p99} ms (oversized), ${accepted.health.latencyMs.p99} ms (largest accepted), idle ${round(idleP99, 1)} ms`);
    return {
      benchmark: 'sdCostHttp',
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
      secondsPerPhase: seconds,
      idleHealth: { samples: idle.latencies.length, latencyMs: healthFigures(idle.latencies) },
      oversized: refused,
      largestAccepted: accepted,
      ratios: { oversized: round(refused.health.latencyMs.p99 / idleP99, 2), largestAccepted: round(accepted.health.latencyMs.p99 / idleP99, 2) },
      acceptance: { targets: ACCEPTANCE, healthP99, oversizedRefused, acceptedServed, met: healthP99 && oversizedRefused && acceptedServed },
    };
  } finally {
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

runIfMain(
  import.meta.url,
  (seconds) => runSdCostHttpBench(seconds !== undefined && seconds > 0 ? { seconds } : {}),
  (report) => !report.acceptance.met,
);
