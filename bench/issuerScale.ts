/**
 * Signature issuance against the size of the issuer's wallet, in a throwaway home: the median of
 * 30 `--proof sig` issuances in a fresh wallet, then again once the issuer has issued N more
 * (2,000 by default), in the same run. Every issuance draws a revocation nonce no credential of the
 * issuer uses and looks up the issuer's auth key credential: both read every stored credential
 * until vc indexed them (about 60 us per credential: 0.6 s per issuance at 10,000). Acceptance: at
 * N credentials, at most 1.5x the fresh wallet's time.
 * Run: node dist/bench/issuerScale.js [N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/context.js';
import { createHolderIdentity, createIssuerIdentity } from '../src/core/pbq/identities.js';
import { issueSignedPbqCredential } from '../src/core/pbq/pbqIssuance.js';
import { median, round, runIfMain } from './stats.js';

const TIMED = 30;
const TARGET_RATIO = 1.5;

export interface IssuerScaleBenchReport {
  benchmark: 'issuerScale';
  machine: { cpus: number; cpuModel: string | undefined; node: string };
  credentials: number;
  fresh: { medianMs: number };
  atScale: { medianMs: number; credentialsInWallet: number };
  /** atScale / fresh; acceptance: at most 1.5. */
  ratio: number;
  fillPerCredentialMs: number;
  acceptable: boolean;
}

/** Runs the benchmark and returns the JSON report. */
export async function runIssuerScaleBench(options: { credentials?: number } = {}): Promise<IssuerScaleBenchReport> {
  const credentials = options.credentials ?? 2000;
  const home = mkdtempSync(path.join(os.tmpdir(), 'vc-bench-issuer-scale-'));
  const ctx = new Context({ config: parseConfig({}, home) });
  try {
    const holder = await createHolderIdentity(ctx);
    await createIssuerIdentity(ctx);
    const issue = (): Promise<unknown> => issueSignedPbqCredential(ctx, { holderDid: holder.did_String });
    const timed = async (): Promise<number> => {
      const samples: number[] = [];
      for (let i = 0; i < TIMED; i += 1) {
        const start = performance.now();
        await issue();
        samples.push(performance.now() - start);
      }
      return median(samples);
    };
    for (let i = 0; i < 3; i += 1) await issue(); // warm-up: the libraries and documents loaded
    const fresh = await timed();
    const fillStart = performance.now();
    for (let i = 0; i < credentials; i += 1) {
      await issue();
      if ((i + 1) % 500 === 0) process.stderr.write(`[issuerScale] ${i + 1}/${credentials} credentials issued\n`);
    }
    const fillPerCredentialMs = (performance.now() - fillStart) / credentials;
    const atScale = await timed();
    const ratio = atScale / fresh;
    return {
      benchmark: 'issuerScale',
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
      credentials,
      fresh: { medianMs: round(fresh, 1) },
      atScale: { medianMs: round(atScale, 1), credentialsInWallet: ctx.store.count('iden3.credentials') },
      ratio: round(ratio, 2),
      fillPerCredentialMs: round(fillPerCredentialMs, 1),
      acceptable: ratio <= TARGET_RATIO,
    };
  } finally {
    await ctx.close();
    rmSync(home, { recursive: true, force: true });
  }
}

runIfMain(
  import.meta.url,
  (credentials) => runIssuerScaleBench(credentials === undefined ? {} : { credentials }),
  (report) => !report.acceptable,
);
