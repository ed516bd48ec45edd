/**
 * Attack s34 (fails on lead f1d17a5): the native fixed-base process dying must reject every
 * multiplication asked of it, never leave one waiting. A request made once the process is gone (it
 * died while idle, or it died under an earlier request and this one was queued behind it) waits
 * for output that cannot come: `closed` is set by a then() that has not run yet when the request
 * first looks, and the 'close' event that would wake it has already fired.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NativeFixedBase } from '../../src/circuits/fixedBase.js';
import { chooseProver } from '../../src/circuits/nativeProver.js';

/** The native prover the integration setup built (its --fixed-base mode). */
async function nativeProver(): Promise<string> {
  const choice = await chooseProver(process.env, { build: true });
  expect(choice.prover, choice.reason).toBe('native');
  return choice.binary!;
}

/** The pid of this process' `vc-groth16 --fixed-base` child (read from /proc: the real process, killed for real). */
function fixedBaseChild(): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes('--fixed-base')) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error('no --fixed-base child of this process');
}

/** How a multiplication ends within `ms`: 'resolved', 'rejected: <message>' or 'pending'. */
function settled(promise: Promise<Buffer>, ms: number): Promise<string> {
  return Promise.race([
    promise.then(
      () => 'resolved',
      (error: Error) => `rejected: ${error.message}`,
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve('pending'), ms)),
  ]);
}

describe.runIf(process.platform === 'linux')('native fixed-base multiplication whose process dies', () => {
  it('rejects the request it dies under and the one queued behind it', async () => {
    const multiplier = new NativeFixedBase(await nativeProver(), 1);
    const many = Array.from({ length: 200_000 }, (_, i) => BigInt(i) * 0x1234567890abcdefn + 7n);
    const first = multiplier.multiply('G1', many);
    const queued = multiplier.multiply('G1', [1n, 2n]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(fixedBaseChild(), 'SIGKILL');
    expect(await settled(first, 5_000)).toMatch(/^rejected: the native prover's fixed-base multiplication was killed \(SIGKILL\)/);
    expect(await settled(queued, 5_000)).toMatch(/^rejected: the native prover's fixed-base multiplication was killed/);
    await expect(multiplier.close()).rejects.toThrow(/killed/);
  }, 30_000);

  it('rejects a request made after the process died while idle', async () => {
    const multiplier = new NativeFixedBase(await nativeProver(), 1);
    expect(await settled(multiplier.multiply('G1', [1n]), 5_000)).toBe('resolved');
    process.kill(fixedBaseChild(), 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await settled(multiplier.multiply('G1', [1n]), 5_000)).toMatch(/^rejected: .*killed \(SIGKILL\)/);
    await expect(multiplier.close()).rejects.toThrow(/killed/);
  }, 30_000);
});
