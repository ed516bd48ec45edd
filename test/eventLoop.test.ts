/**
 * shareEventLoop: a long chain of async steps that never wait for I/O holds the event loop (a
 * timer or a request waits for the whole chain) unless each step shares it.
 */
import { describe, expect, it } from 'vitest';
import { letEventLoopRun, shareEventLoop } from '../src/eventLoop.js';

/** Busy for `ms` of CPU, as a step of Poseidon hashing is. */
function work(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning
  }
}

/** How many times an immediate callback, rescheduled each time it runs, ran while `chain` ran. */
async function turnsDuring(chain: () => Promise<void>): Promise<number> {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    if (!running) return;
    turns += 1;
    setImmediate(tick);
  };
  await letEventLoopRun();
  setImmediate(tick);
  await chain();
  running = false;
  return turns;
}

describe('shareEventLoop', () => {
  it('gives the event loop turns during a chain of steps that never wait for I/O', async () => {
    // 60 steps of 1 ms: the event loop runs several times (once per slice at least).
    const shared = await turnsDuring(async () => {
      for (let i = 0; i < 60; i += 1) {
        await shareEventLoop();
        work(1);
      }
    });
    expect(shared).toBeGreaterThanOrEqual(2);
    // The same chain without it: resolved promises only, the event loop never runs.
    const held = await turnsDuring(async () => {
      for (let i = 0; i < 60; i += 1) {
        await Promise.resolve();
        work(1);
      }
    });
    expect(held).toBe(0);
  });

  it('does not yield at every step: short steps within a slice go on at once', async () => {
    // 200 quick steps: at most the first waits for a turn (it cannot know when the loop last ran),
    // the others follow within the slice it starts (a turn each would cost an event loop iteration).
    const turns = await turnsDuring(async () => {
      for (let i = 0; i < 200; i += 1) await shareEventLoop();
    });
    expect(turns).toBeLessThanOrEqual(1);
  });
});
