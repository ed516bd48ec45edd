/**
 * The prover's bounds in a long-running process: the shared bn128 curve (and its worker threads)
 * stays alive while any task of the process still uses it and is released when the last one ends;
 * the timings a prover keeps are bounded.
 */
import { describe, expect, it } from 'vitest';
import { withSharedBn128 } from '../../src/circuits/curve.js';
import { KEPT_PROOF_TIMINGS, TimedProver } from '../../src/iden3/prover.js';
import { loadIden3Modules } from '../../src/iden3/modules.js';

interface Curve {
  G1: { g: Uint8Array; F: { n8: number }; multiExpAffine(bases: Uint8Array, scalars: Uint8Array): Promise<Uint8Array>; toAffine(p: Uint8Array): Uint8Array; eq(a: Uint8Array, b: Uint8Array): boolean; timesScalar(p: Uint8Array, s: Uint8Array): Uint8Array };
  terminate(): Promise<void>;
}

const cachedCurve = (): Curve | null | undefined => (globalThis as { curve_bn128?: Curve | null }).curve_bn128;

async function bn128(): Promise<Curve> {
  const name: string = 'ffjavascript';
  return ((await import(name)) as { buildBn128(): Promise<Curve> }).buildBn128();
}

/** A multi-exponentiation through the curve's worker threads: 3·G + 5·G = 8·G. */
async function multiExp(curve: Curve): Promise<boolean> {
  const point = curve.G1.toAffine(curve.G1.g);
  const bases = new Uint8Array(point.length * 2);
  bases.set(point, 0);
  bases.set(point, point.length);
  const scalars = new Uint8Array(64);
  scalars[0] = 3;
  scalars[32] = 5;
  const sum = await curve.G1.multiExpAffine(bases, scalars);
  const eight = new Uint8Array(32);
  eight[0] = 8;
  return curve.G1.eq(sum, curve.G1.timesScalar(curve.G1.g, eight));
}

describe('withSharedBn128', () => {
  it('keeps the curve for a task still running when another ends, and releases it after the last', async () => {
    let releaseShort!: () => void;
    const shortMayEnd = new Promise<void>((resolve) => (releaseShort = resolve));
    let shortEnded!: () => void;
    const shortDone = new Promise<void>((resolve) => (shortEnded = resolve));

    const long = withSharedBn128(async () => {
      const curve = await bn128();
      releaseShort();
      await shortDone;
      // The other task has ended: the curve must still be the cached one and still compute.
      expect(cachedCurve()).toBe(curve);
      return multiExp(curve);
    });
    const short = withSharedBn128(async () => {
      await shortMayEnd;
      return multiExp(await bn128());
    }).finally(() => shortEnded());

    expect(await short).toBe(true);
    expect(await long).toBe(true);
    expect(cachedCurve()).toBeNull();
  }, 60_000);

  it('releases the curve when the only task fails', async () => {
    await expect(
      withSharedBn128(async () => {
        await bn128();
        throw new Error('witness does not satisfy the constraints');
      }),
    ).rejects.toThrow(/constraints/);
    expect(cachedCurve()).toBeNull();
  }, 60_000);
});

describe('TimedProver timings', () => {
  it(`keeps only the last ${KEPT_PROOF_TIMINGS} timings and finds a proof's timing by its number`, async () => {
    const prover = new TimedProver({} as never, await loadIden3Modules());
    const record = (prover as unknown as { recordTiming(t: { circuitId: string; witnessMs: number; provingMs: number }): void }).recordTiming.bind(prover);
    for (let i = 0; i < KEPT_PROOF_TIMINGS + 10; i += 1) record({ circuitId: `c${i}`, witnessMs: i, provingMs: i });
    expect(prover.timings).toHaveLength(KEPT_PROOF_TIMINGS);
    expect(prover.proofsGenerated).toBe(KEPT_PROOF_TIMINGS + 10);
    expect(prover.timings[0]!.circuitId).toBe('c10');
    expect(prover.timingOf(KEPT_PROOF_TIMINGS + 9)?.circuitId).toBe(`c${KEPT_PROOF_TIMINGS + 9}`);
    expect(prover.timingOf(10)?.circuitId).toBe('c10');
    expect(prover.timingOf(9)).toBeUndefined();
  });
});
