/**
 * The slice of ffjavascript's bn128 curve (the WebAssembly curve snarkjs uses) that the circuit
 * pipeline needs, typed locally: the package ships no type declarations. Loaded lazily, because
 * building it starts worker threads.
 */

/** A field as ffjavascript's WasmField1 exposes it (elements are Montgomery byte arrays). */
export interface WasmField {
  n8: number;
  w: Uint8Array[];
  toObject(element: Uint8Array): bigint;
}

/** One group (G1 or G2) of the curve. */
export interface WasmGroup {
  F: { n8: number };
  g: Uint8Array;
  timesScalar(point: Uint8Array, scalar: Uint8Array): Uint8Array;
  toAffine(point: Uint8Array): Uint8Array;
  toRprLEM(buffer: Uint8Array, offset: number, point: Uint8Array): void;
}

export interface Bn128Curve {
  name: string;
  r: bigint;
  q: bigint;
  Fr: WasmField;
  G1: WasmGroup;
  G2: WasmGroup;
  terminate(): Promise<void>;
}

/** The process-wide bn128 curve (ffjavascript caches one instance, shared with snarkjs). */
export async function loadBn128(): Promise<Bn128Curve> {
  const moduleName: string = 'ffjavascript';
  const ffjavascript = (await import(moduleName)) as { buildBn128: () => Promise<Bn128Curve> };
  return ffjavascript.buildBn128();
}

/** Tasks of this process currently using the shared bn128 curve (see withSharedBn128). */
let curveUsers = 0;

/**
 * Runs `task` while it may use the process-wide bn128 curve, and stops the curve's worker threads
 * when the last such task ends. snarkjs and ffjavascript share one cached curve per process
 * (globalThis.curve_bn128): terminating it after every proof (so a CLI process can exit) would
 * pull the threads from under another proof still running in the same process (`vc serve --role
 * all` serves several roles). Counting users keeps the curve alive while anyone proves; the next
 * proof after the last one builds a fresh curve.
 */
export async function withSharedBn128<T>(task: () => Promise<T>): Promise<T> {
  curveUsers += 1;
  try {
    return await task();
  } finally {
    curveUsers -= 1;
    if (curveUsers === 0) {
      // Read the cache directly: getCurveFromName would build a new curve just to terminate it.
      const cached = (globalThis as { curve_bn128?: Bn128Curve | null }).curve_bn128;
      if (cached) await cached.terminate();
    }
  }
}

/** Stops the curve's worker threads so the process can exit (the next load builds a new curve). */
export async function releaseBn128(): Promise<void> {
  const cached = (globalThis as { curve_bn128?: Bn128Curve | null }).curve_bn128;
  if (cached) await cached.terminate();
}
