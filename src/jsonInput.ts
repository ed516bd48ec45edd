/**
 * The one strict JSON parser for everything a user hands to `vc` (input files, HTTP bodies).
 * JSON.parse accepts documents that different tools read differently: a repeated key (the last
 * one wins here, the first one elsewhere), so a signed credential could say one thing to the
 * signer and another to a verifier; integers beyond 2^53, silently rounded; and nesting deep
 * enough to exhaust a recursive consumer; and a `__proto__` key, which JSON.parse keeps as a plain
 * data property but JavaScript readers drop (zod's records, object spreads into a literal) or take
 * as the object's prototype: `{"birthDate": {"__proto__": {"$lt": 20010101}}}` would become an empty
 * condition, a request to disclose the value. A single iterative pass refuses all four with the
 * JSON path of the problem, then JSON.parse builds the value (fast).
 */
import { InputError } from './errors.js';

/** Default limit of nested objects/arrays in an input document. */
export const MAX_JSON_DEPTH = 64;

export interface ParseJsonOptions {
  /** Maximum nesting of objects and arrays (default MAX_JSON_DEPTH). */
  maxDepth?: number;
}

/** JSON input that is malformed or ambiguous (HTTP 400 `invalid_json`, exit code 2). */
export class InvalidJsonError extends InputError {
  override readonly code: string = 'invalid_json';
}

// Character codes used by the scanner.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Objects with more keys than this track them in a Set; smaller ones in an array (cheaper). */
const SMALL_OBJECT_KEYS = 16;
/** Integers of at most this many digits are always safe; longer ones are checked. */
const ALWAYS_SAFE_DIGITS = 15;
/** Path shown in messages: at most this many segments and characters, then "...". */
const PATH_SEGMENTS_SHOWN = 10;
const PATH_CHARS_SHOWN = 100;
const KEY_CHARS_SHOWN = 40;

function isHexDigit(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function formatKeySegment(key: string, first: boolean): string {
  if (/^[A-Za-z_$@][\w$@-]*$/.test(key)) return first ? shorten(key, KEY_CHARS_SHOWN) : `.${shorten(key, KEY_CHARS_SHOWN)}`;
  return `[${JSON.stringify(shorten(key, KEY_CHARS_SHOWN))}]`;
}

/** Formats a path as `a.b[0]["odd key"]`, truncated with "..." so messages stay one short line. */
function formatPath(segments: ReadonlyArray<string | number>, length: number): string {
  let out = '';
  for (let k = 0; k < length; k++) {
    if (k >= PATH_SEGMENTS_SHOWN || out.length >= PATH_CHARS_SHOWN) return `${out}...`;
    const segment = segments[k]!;
    out += typeof segment === 'number' ? `[${segment}]` : formatKeySegment(segment, k === 0);
  }
  return out;
}

function describeChar(text: string, i: number): string {
  if (i >= text.length) return 'end of input';
  const c = text.codePointAt(i)!;
  if (c === 0xfeff) return 'byte order mark (U+FEFF)';
  if (c < 0x20 || c === 0x7f) return `control character U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  return `character ${JSON.stringify(String.fromCodePoint(c))}`;
}

function lineAndColumn(text: string, i: number): string {
  let line = 1;
  let lineStart = 0;
  for (let k = text.indexOf('\n'); k !== -1 && k < i; k = text.indexOf('\n', k + 1)) {
    line++;
    lineStart = k + 1;
  }
  return `line ${line} column ${i - lineStart + 1}`;
}

/**
 * Parses user-provided JSON text strictly; throws InvalidJsonError (an InputError) naming `source`
 * (a file, "request body") and the JSON path for a syntax error, a duplicated key at any depth,
 * a `__proto__` key, nesting deeper than `maxDepth`, or an integer literal that is not a safe integer.
 */
export function parseJsonText(text: string, source: string, options: ParseJsonOptions = {}): unknown {
  scanJsonText(text, source, options.maxDepth ?? MAX_JSON_DEPTH);
  return JSON.parse(text) as unknown;
}

// The scanner is written as one loop over module-level helpers that take and return positions:
// no closure captures the position, which keeps it in a register (several times faster).

function skipWhitespace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** Runs of string characters that need no attention: the regex engine skips long strings fast. */
const PLAIN_STRING_CHARS = /[^"\\\u0000-\u001f]*/y;
/** Characters checked one by one before handing a long string to PLAIN_STRING_CHARS. */
const SHORT_STRING = 24;

/**
 * The string starting with the quote at `i`: returns the index after its closing quote, or
 * `-1 - position` of its first problem (unterminated, bad escape, raw control character).
 */
function stringEnd(text: string, i: number): number {
  let k = i + 1;
  const shortEnd = k + SHORT_STRING;
  for (;;) {
    const c = text.charCodeAt(k);
    // Most characters need nothing: letters (above the backslash), digits, punctuation.
    if (c > BACKSLASH || (c >= 0x20 && c !== QUOTE && c !== BACKSLASH)) {
      if (++k >= shortEnd) {
        PLAIN_STRING_CHARS.lastIndex = k;
        PLAIN_STRING_CHARS.test(text);
        k = PLAIN_STRING_CHARS.lastIndex;
      }
    } else if (c === QUOTE) {
      return k + 1;
    } else if (c === BACKSLASH) {
      const e = text.charCodeAt(k + 1);
      if (e === 0x75 /* u */) {
        if (!(isHexDigit(text.charCodeAt(k + 2)) && isHexDigit(text.charCodeAt(k + 3)) && isHexDigit(text.charCodeAt(k + 4)) && isHexDigit(text.charCodeAt(k + 5)))) return -1 - k;
        k += 6;
      } else if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        k += 2;
      } else {
        return -1 - k;
      }
    } else {
      // A raw control character, or NaN past the end of the input.
      return -1 - k;
    }
  }
}

function digitsEnd(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c < ZERO || c > NINE || c !== c) return i;
    i++;
  }
}

/**
 * The number starting at `i`: returns the index after it, or `-1 - position` of a missing digit.
 * Sets `numberIsInteger` (no fraction, no exponent).
 */
let numberIsInteger = true;
function numberEnd(text: string, i: number): number {
  let k = i;
  if (text.charCodeAt(k) === MINUS) k++;
  const first = text.charCodeAt(k);
  if (first === ZERO) k++;
  else if (first > ZERO && first <= NINE) k = digitsEnd(text, k + 1);
  else return -1 - k;
  numberIsInteger = true;
  if (text.charCodeAt(k) === DOT) {
    numberIsInteger = false;
    const end = digitsEnd(text, k + 1);
    if (end === k + 1) return -1 - end;
    k = end;
  }
  const e = text.charCodeAt(k);
  if (e === 0x65 || e === 0x45) {
    numberIsInteger = false;
    k++;
    const sign = text.charCodeAt(k);
    if (sign === 0x2b || sign === MINUS) k++;
    const end = digitsEnd(text, k);
    if (end === k) return -1 - end;
    k = end;
  }
  return k;
}

/** Where the scanner is, for error messages. */
interface ScanState {
  text: string;
  source: string;
  path: Array<string | number>;
  depth: number;
}

function invalid(state: ScanState, message: string): InvalidJsonError {
  const field = formatPath(state.path, state.depth);
  return new InvalidJsonError(message, { field: field === '' ? state.source : field });
}

function syntaxError(state: ScanState, expected: string, at: number): InvalidJsonError {
  const where = state.depth === 0 ? '' : `, in ${formatPath(state.path, state.depth)}`;
  return invalid(state, `${state.source} is not valid JSON (expected ${expected}, found ${describeChar(state.text, at)} at ${lineAndColumn(state.text, at)}${where})`);
}

function stringError(state: ScanState, at: number): InvalidJsonError {
  const { text, source } = state;
  const c = text.charCodeAt(at);
  const reason =
    at >= text.length
      ? 'a string is not closed'
      : c === BACKSLASH
        ? `bad escape ${JSON.stringify(text.slice(at, at + 2))} in a string`
        : `unescaped ${describeChar(text, at)} in a string`;
  const where = state.depth === 0 ? '' : `, in ${formatPath(state.path, state.depth)}`;
  return invalid(state, `${source} is not valid JSON (${reason} at ${lineAndColumn(text, at)}${where})`);
}

function unsafeIntegerError(state: ScanState, start: number, end: number): InvalidJsonError {
  const literal = state.text.slice(start, end);
  const digits = literal.replace('-', '').length;
  const shown = literal.length <= 40 ? literal : `${literal.slice(0, 20)}… (${digits} digits)`;
  const bound = literal.startsWith('-') ? '-2^53' : '2^53';
  const field = formatPath(state.path, state.depth);
  return invalid(state, `${state.source}: ${field === '' ? '' : `${field}: `}the integer ${shown} is beyond ${bound} and would silently change (write it as a string)`);
}

/**
 * Keys seen in each open object, by depth. Arrays are reused from one object to the next at the
 * same depth (a count marks their live part); objects with many keys switch to a Set.
 */
interface KeyTracker {
  lists: string[][];
  counts: number[];
  sets: Array<Set<string> | undefined>;
}

/** Reads the key at `i` of the object at depth `state.depth`, refusing a repeat; returns the index after its ':' and whitespace. */
function readKey(state: ScanState, keys: KeyTracker, i: number): number {
  const { text, path } = state;
  const level = state.depth - 1;
  const end = text.charCodeAt(i) === QUOTE ? stringEnd(text, i) : -1;
  if (end < 0) {
    // No key yet: the error is about the object itself.
    state.depth = level;
    throw text.charCodeAt(i) === QUOTE ? stringError(state, -1 - end) : syntaxError(state, 'a quoted key', i);
  }
  let key = text.slice(i + 1, end - 1);
  // Keys are compared unescaped: "a" and "\u0061" are the same key to every reader.
  if (key.includes('\\')) key = JSON.parse(text.slice(i, end)) as string;
  const set = keys.sets[level];
  let duplicate = false;
  if (set !== undefined) {
    duplicate = set.has(key);
    set.add(key);
  } else {
    const list = keys.lists[level]!;
    const count = keys.counts[level]!;
    for (let k = 0; k < count; k++) {
      if (list[k] === key) {
        duplicate = true;
        break;
      }
    }
    if (count < SMALL_OBJECT_KEYS) {
      list[count] = key;
      keys.counts[level] = count + 1;
    } else {
      keys.sets[level] = new Set([...list.slice(0, count), key]);
    }
  }
  if (key === '__proto__') {
    const at = level === 0 ? 'the top level' : formatPath(path, level);
    path[level] = key;
    throw invalid(state, `${state.source}: the key "__proto__" at ${at} is not accepted (JavaScript readers drop it or take it as the object's prototype, so the document would not say the same to every reader)`);
  }
  if (duplicate) {
    const at = level === 0 ? 'the top level' : formatPath(path, level);
    path[level] = key;
    throw invalid(state, `${state.source}: duplicate key ${JSON.stringify(shorten(key, KEY_CHARS_SHOWN))} at ${at} (JSON objects must not repeat a key)`);
  }
  path[level] = key;
  const colon = skipWhitespace(text, end);
  if (text.charCodeAt(colon) !== COLON) throw syntaxError(state, "':' after the key", colon);
  return skipWhitespace(text, colon + 1);
}

/** Validates `text` in one iterative pass (no recursion, so any depth is safe); throws on the first problem. */
function scanJsonText(text: string, source: string, maxDepth: number): void {
  const n = text.length;
  // Per open container, by depth: its opening character; the path segment (key or index) of the
  // value read inside it is in state.path.
  const kinds: number[] = [];
  const state: ScanState = { text, source, path: [], depth: 0 };
  const path = state.path;
  const keys: KeyTracker = { lists: [], counts: [], sets: [] };
  let depth = 0;
  let i = skipWhitespace(text, 0);
  if (i >= n) throw invalid(state, `${source} is not valid JSON (the input is empty)`);

  // Each turn reads one value at i, then climbs out of every container that it completes.
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) {
        state.depth = depth;
        throw stringError(state, -1 - end);
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth >= maxDepth) {
        state.depth = depth;
        throw invalid(state, `${source}: nested deeper than ${maxDepth} levels at ${formatPath(path, depth) || 'the top level'}`);
      }
      kinds[depth] = c;
      path[depth] = 0;
      depth++;
      i = skipWhitespace(text, i + 1);
      if (c === OPEN_BRACE) {
        if (text.charCodeAt(i) !== CLOSE_BRACE) {
          while (keys.lists.length < depth) keys.lists.push([]);
          keys.counts[depth - 1] = 0;
          keys.sets[depth - 1] = undefined;
          state.depth = depth;
          i = readKey(state, keys, i);
          continue;
        }
      } else if (text.charCodeAt(i) !== CLOSE_BRACKET) {
        continue;
      }
      // An empty object or array.
      i++;
      depth--;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      const end = numberEnd(text, i);
      if (end < 0) {
        state.depth = depth;
        throw syntaxError(state, 'a digit', -1 - end);
      }
      // Up to 15 digits is always a safe integer; only longer literals need a look.
      if (end - i > ALWAYS_SAFE_DIGITS && numberIsInteger && !Number.isSafeInteger(Number(text.slice(i, end)))) {
        state.depth = depth;
        throw unsafeIntegerError(state, i, end);
      }
      i = end;
    } else if (c === 0x74 /* t */ && text.startsWith('true', i)) {
      i += 4;
    } else if (c === 0x66 /* f */ && text.startsWith('false', i)) {
      i += 5;
    } else if (c === 0x6e /* n */ && text.startsWith('null', i)) {
      i += 4;
    } else {
      state.depth = depth;
      throw syntaxError(state, 'a JSON value', i);
    }

    // After a value: a separator, the end of its container, or the end of the input.
    for (;;) {
      i = skipWhitespace(text, i);
      if (depth === 0) {
        state.depth = 0;
        if (i < n) throw syntaxError(state, 'the end of the input after the top-level value', i);
        return;
      }
      const d = text.charCodeAt(i);
      const kind = kinds[depth - 1];
      if (d === COMMA) {
        i = skipWhitespace(text, i + 1);
        if (kind === OPEN_BRACE) {
          state.depth = depth;
          i = readKey(state, keys, i);
        } else {
          (path[depth - 1] as number)++;
        }
        break;
      }
      if (d !== (kind === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET)) {
        state.depth = depth;
        throw syntaxError(state, kind === OPEN_BRACE ? "',' or '}' after a value in an object" : "',' or ']' after a value in an array", i);
      }
      i++;
      depth--;
    }
  }
}
