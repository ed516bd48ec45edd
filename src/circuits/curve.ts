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

/** Stops the curve's worker threads so the process can exit (the next load builds a new curve). */
export async function releaseBn128(): Promise<void> {
  const cached = (globalThis as { curve_bn128?: Bn128Curve | null }).curve_bn128;
  if (cached) await cached.terminate();
}
