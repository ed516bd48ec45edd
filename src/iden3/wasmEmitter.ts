/**
 * A small WebAssembly binary emitter: enough of the format (LEB128 numbers, the type, function,
 * memory, export and code sections, and a few dozen instructions) to assemble straight-line
 * arithmetic code generated at run time, such as the field arithmetic of poseidonWasm.ts. It checks
 * nothing the engine does not check again: `new WebAssembly.Module` validates what it is given.
 */

/** Value types. */
export const I32 = 0x7f;
export const I64 = 0x7e;

/** Opcodes without immediates used by the generators. */
export const Op = {
  drop: 0x1a,
  select: 0x1b,
  i32Eqz: 0x45,
  i32Eq: 0x46,
  i32GeU: 0x4f,
  i64Eqz: 0x50,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  i64Add: 0x7c,
  i64Sub: 0x7d,
  i64Mul: 0x7e,
  i64And: 0x83,
  i64Or: 0x84,
  i64Shl: 0x86,
  i64ShrU: 0x88,
} as const;

/** Appends `value` (a non-negative integer below 2^32) as unsigned LEB128. */
export function uleb(value: number, out: number[]): void {
  if (value >= 0 && value < 0x80 && Number.isInteger(value)) {
    out.push(value);
    return;
  }
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`uleb: ${value} is not a u32`);
  let v = value;
  do {
    let byte = v & 0x7f;
    v = Math.floor(v / 128);
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
}

/** Appends `value` (a signed integer of at most 64 bits) as signed LEB128. */
export function sleb(value: bigint, out: number[]): void {
  let v = value;
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (byte & 0x40) === 0) || (v === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return;
  }
}

/** Encodings of i64 constants already emitted (the generators use a few dozen, many times). */
const i64Encodings = new Map<bigint, number[]>();

/** A function body under construction: instructions appended in order, chainable. */
export class Code {
  readonly bytes: number[] = [];

  /** An instruction whose one immediate is an index (a local, a branch depth), LEB128. */
  private indexed(opcode: number, index: number): this {
    this.bytes.push(opcode);
    uleb(index, this.bytes);
    return this;
  }

  op(...codes: number[]): this {
    for (const code of codes) this.bytes.push(code);
    return this;
  }

  get(local: number): this {
    return this.indexed(0x20, local);
  }

  set(local: number): this {
    return this.indexed(0x21, local);
  }

  tee(local: number): this {
    return this.indexed(0x22, local);
  }

  i32(value: number): this {
    this.bytes.push(0x41);
    sleb(BigInt(value | 0), this.bytes);
    return this;
  }

  /** An i64 constant; `value` is taken modulo 2^64 (so 0..2^64-1 and negative values both work). */
  i64(value: bigint): this {
    let encoded = i64Encodings.get(value);
    if (encoded === undefined) {
      encoded = [0x42];
      sleb(BigInt.asIntN(64, value), encoded);
      i64Encodings.set(value, encoded);
    }
    for (const byte of encoded) this.bytes.push(byte);
    return this;
  }

  private memory(opcode: number, align: number, offset: number): this {
    this.bytes.push(opcode);
    uleb(align, this.bytes);
    uleb(offset, this.bytes);
    return this;
  }

  /** i64.load32_u: the address on the stack plus `offset`. */
  load32u(offset: number): this {
    return this.memory(0x35, 2, offset);
  }

  /** i64.store32: stores the low 32 bits of an i64 at the address plus `offset`. */
  store32(offset: number): this {
    return this.memory(0x3e, 2, offset);
  }

  load64(offset: number): this {
    return this.memory(0x29, 3, offset);
  }

  store64(offset: number): this {
    return this.memory(0x37, 3, offset);
  }

  call(functionIndex: number): this {
    this.bytes.push(0x10);
    uleb(functionIndex, this.bytes);
    return this;
  }

  /** A block (no result) whose body `emit` writes; `br 0` inside leaves it. */
  block(emit: () => void): this {
    this.bytes.push(0x02, 0x40);
    emit();
    this.bytes.push(0x0b);
    return this;
  }

  /** A loop (no result) whose body `emit` writes; `br 0` inside starts it again. */
  loop(emit: () => void): this {
    this.bytes.push(0x03, 0x40);
    emit();
    this.bytes.push(0x0b);
    return this;
  }

  /** if (no result) on the i32 on the stack. */
  ifThen(emit: () => void): this {
    this.bytes.push(0x04, 0x40);
    emit();
    this.bytes.push(0x0b);
    return this;
  }

  br(depth: number): this {
    return this.indexed(0x0c, depth);
  }

  brIf(depth: number): this {
    return this.indexed(0x0d, depth);
  }
}

/** One function of a module: its signature, its extra locals' types, its body, an export name. */
export interface FunctionDef {
  params: readonly number[];
  results: readonly number[];
  /** The types of the locals after the parameters, in index order. */
  locals: readonly number[];
  code: Code;
  exportName?: string;
}

function name(text: string, out: number[]): void {
  const bytes = new TextEncoder().encode(text);
  uleb(bytes.length, out);
  out.push(...bytes);
}

function section(id: number, content: number[], out: number[]): void {
  out.push(id);
  uleb(content.length, out);
  for (const byte of content) out.push(byte);
}

/** Run-length groups of equal local types, as the code section wants them. */
function localGroups(types: readonly number[]): Array<[number, number]> {
  const groups: Array<[number, number]> = [];
  for (const type of types) {
    const last = groups[groups.length - 1];
    if (last !== undefined && last[1] === type) last[0] += 1;
    else groups.push([1, type]);
  }
  return groups;
}

/**
 * The binary of a module with `functions` (function i is index i, each with its own type) and one
 * memory of `memoryPages` 64 KiB pages, exported as `memoryExport`.
 */
export function encodeModule(functions: readonly FunctionDef[], memoryPages: number, memoryExport: string): Uint8Array<ArrayBuffer> {
  const out: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

  const types: number[] = [];
  uleb(functions.length, types);
  for (const fn of functions) {
    types.push(0x60);
    uleb(fn.params.length, types);
    types.push(...fn.params);
    uleb(fn.results.length, types);
    types.push(...fn.results);
  }
  section(1, types, out);

  const declarations: number[] = [];
  uleb(functions.length, declarations);
  functions.forEach((_, index) => uleb(index, declarations));
  section(3, declarations, out);

  const memory: number[] = [1, 0x00];
  uleb(memoryPages, memory);
  section(5, memory, out);

  const exported = functions.flatMap((fn, index) => (fn.exportName === undefined ? [] : [{ name: fn.exportName, index }]));
  const exports: number[] = [];
  uleb(exported.length + 1, exports);
  name(memoryExport, exports);
  exports.push(0x02, 0x00);
  for (const entry of exported) {
    name(entry.name, exports);
    exports.push(0x00);
    uleb(entry.index, exports);
  }
  section(7, exports, out);

  const code: number[] = [];
  uleb(functions.length, code);
  for (const fn of functions) {
    const body: number[] = [];
    const groups = localGroups(fn.locals);
    uleb(groups.length, body);
    for (const [count, type] of groups) {
      uleb(count, body);
      body.push(type);
    }
    for (const byte of fn.code.bytes) body.push(byte);
    body.push(0x0b);
    uleb(body.length, code);
    for (const byte of body) code.push(byte);
  }
  section(10, code, out);

  return new Uint8Array(out);
}
