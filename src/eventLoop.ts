/**
 * Sharing the event loop. A chain of promises that never waits for I/O (JavaScript Poseidon over
 * a Merkle tree: every step awaits a promise that is already resolved) runs as one stretch of
 * microtasks, holding the event loop for its whole length: `vc serve` answers nothing else (not
 * even /healthz) while a credential is merklized, and a lock's keep-alive timer does not fire.
 */

/** Lets timers and I/O run (one turn of the event loop) before going on. */
export function letEventLoopRun(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The longest stretch of cooperative work (see shareEventLoop) between two turns of the event loop. */
export const EVENT_LOOP_SLICE_MS = 10;

/** When the event loop last reached its check phase, as seen by the watch below. */
let lastTurn = performance.now();
let watching = false;

function watchTurns(): void {
  if (watching) return;
  watching = true;
  setImmediate(() => {
    watching = false;
    lastTurn = performance.now();
  });
}

/**
 * For steps of long chains of work that never wait for I/O: lets the event loop run when it has
 * not had a turn for EVENT_LOOP_SLICE_MS, else goes on at once (a microtask). Cheap enough to
 * call for every hash.
 */
export async function shareEventLoop(): Promise<void> {
  watchTurns();
  if (performance.now() - lastTurn < EVENT_LOOP_SLICE_MS) return;
  await letEventLoopRun();
}
