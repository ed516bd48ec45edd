/**
 * Benchmark of the embedded chain: how long a command waits for a ready chain (node answering,
 * contracts verified) when the node is stopped but the contracts are already deployed, compared
 * in the same run with a bare anvil start to its first RPC answer. Also reports the one-time
 * first deployment and the per-command cost when the node is already running.
 * Run: node dist/bench/chain.js [runs]  (JSON on stdout)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getChain } from '../src/chain/chainClient.js';
import { stopLocalNode } from '../src/chain/node/lifecycle.js';
import { findFreePort } from '../src/chain/node/ports.js';
import { anvilBinaryPath } from '../src/chain/node/process.js';
import { probeChainId } from '../src/chain/jsonRpc.js';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/context.js';
import { median, round, runIfMain } from './stats.js';

export interface Stats {
  medianMs: number;
  minMs: number;
  maxMs: number;
  samplesMs: number[];
}

export interface ChainBenchResult {
  name: 'chain';
  runs: number;
  /** Start of a fresh chain plus deployment of every contract (once). */
  firstDeploymentMs: number;
  /** Stopped node, contracts deployed: new process context until getChain resolves. */
  restartToReadyMs: Stats;
  /** Node already running: getChain in a new context (the per-command overhead). */
  reuseMs: Stats;
  /** Baseline: bare anvil (no state) spawned until its first eth_chainId answer. */
  baselineBareAnvilMs: Stats;
  /** Size of the saved chain state the restart loads. */
  stateBytes: number;
}

function stats(samples: number[]): Stats {
  const tenth = (n: number): number => round(n, 1);
  return { medianMs: tenth(median(samples)), minMs: tenth(Math.min(...samples)), maxMs: tenth(Math.max(...samples)), samplesMs: samples.map(tenth) };
}

async function timeGetChain(home: string): Promise<number> {
  const ctx = new Context({ config: parseConfig({}, home) });
  const started = performance.now();
  try {
    await getChain(ctx);
    return performance.now() - started;
  } finally {
    await ctx.close();
  }
}

async function stop(home: string): Promise<void> {
  const ctx = new Context({ config: parseConfig({}, home) });
  try {
    await stopLocalNode(ctx);
  } finally {
    await ctx.close();
  }
}

async function bareAnvilStart(): Promise<number> {
  const port = await findFreePort();
  const started = performance.now();
  const child = spawn(anvilBinaryPath(), ['--host', '127.0.0.1', '--port', String(port), '--chain-id', '152', '--silent'], { stdio: 'ignore' });
  try {
    const url = `http://127.0.0.1:${port}`;
    for (;;) {
      if ((await probeChainId(url, 500)) === 152) return performance.now() - started;
      if (child.exitCode !== null) throw new Error(`bare anvil exited with code ${child.exitCode}`);
      if (performance.now() - started > 30_000) throw new Error('bare anvil did not answer within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));
  }
}

/** Runs the chain benchmark and returns its JSON-ready result. */
export async function runChainBench(runs = 5): Promise<ChainBenchResult> {
  const home = mkdtempSync(path.join(tmpdir(), 'vc-bench-chain-'));
  try {
    const firstDeploymentMs = await timeGetChain(home);
    const reuse: number[] = [];
    const restart: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < runs; i++) {
      reuse.push(await timeGetChain(home));
      await stop(home);
      restart.push(await timeGetChain(home));
      baseline.push(await bareAnvilStart());
    }
    const stateBytes = statSync(path.join(home, 'chain', '152', 'state.json')).size;
    return {
      name: 'chain',
      runs,
      firstDeploymentMs: Math.round(firstDeploymentMs),
      restartToReadyMs: stats(restart),
      reuseMs: stats(reuse),
      baselineBareAnvilMs: stats(baseline),
      stateBytes,
    };
  } finally {
    await stop(home).catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, (runs) => runChainBench(runs !== undefined && Number.isInteger(runs) && runs > 0 ? runs : 5));
