/**
 * shareEventLoop: a long chain of async steps that never wait for I/O holds the event loop (a
 * timer or a request waits for the whole chain) unless each step shares it.
 */
import { describe, expect, it } from 'vitest';
import { shareEventLoop } from '../src/eventLoop.js';
import { eventLoopTurnsDuring } from './helpers.js';

/** Busy for `ms` of CPU, as a step of Poseidon hashing is. */
function work(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning
  }
}

describe('shareEventLoop', () => {
  it('gives the event loop turns during a chain of steps that never wait for I/O', async () => {
    // 60 steps of 1 ms: the event loop runs several times (once per slice at least).
    const shared = await eventLoopTurnsDuring(async () => {
      for (let i = 0; i < 60; i += 1) {
        await shareEventLoop();
        work(1);
      }
    });
    expect(shared).toBeGreaterThanOrEqual(2);
    // The same chain without it: resolved promises only, the event loop never runs.
    const held = await eventLoopTurnsDuring(async () => {
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
    const turns = await eventLoopTurnsDuring(async () => {
      for (let i = 0; i < 200; i += 1) await shareEventLoop();
    });
    expect(turns).toBeLessThanOrEqual(1);
  });
});
