/**
 * The strict JSON parser of every user input (src/jsonInput.ts): duplicate keys, nesting depth,
 * unsafe integers and syntax errors refused with the source and the JSON path; and the CLI
 * refusing such an input file with exit code 2 and one line on stderr.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { InvalidJsonError, MAX_JSON_DEPTH, parseJsonText } from '../src/jsonInput.js';
import { runVc, tempDir } from './helpers.js';

const tmp = tempDir('vc-json-');
afterAll(() => tmp.cleanup());

/** The error parseJsonText throws for `text` (fails the test when it parses). */
function refusal(text: string, source = 'input.json', maxDepth?: number): InvalidJsonError {
  try {
    parseJsonText(text, source, maxDepth === undefined ? {} : { maxDepth });
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidJsonError);
    expect(error).toBeInstanceOf(InputError);
    const refused = error as InvalidJsonError;
    expect(refused.exitCode).toBe(2);
    expect(refused.httpStatus).toBe(400);
    expect(refused.message).not.toContain('\n');
    return refused;
  }
  throw new Error(`parsed: ${text.slice(0, 80)}`);
}

function nestedArrays(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

describe('parseJsonText', () => {
  it('parses ordinary JSON like JSON.parse', () => {
    const text = '{"a": [1, -2.5, 1e3, true, false, null, "x\\"y\\u00e9"], "b": {"c": {}}, "d": [], "e": ""}\n';
    expect(parseJsonText(text, 'input.json')).toEqual(JSON.parse(text));
    expect(parseJsonText(' 42 ', 'input.json')).toBe(42);
    expect(parseJsonText('"text"', 'input.json')).toBe('text');
  });

  it('refuses a duplicate key at the top level', () => {
    const error = refusal('{"name": "Ada", "age": 36, "name": "Bob"}', 'credential.json');
    expect(error.message).toBe('credential.json: duplicate key "name" at the top level (JSON objects must not repeat a key)');
    expect(error.field).toBe('name');
  });

  it('refuses a duplicate key in a nested object, naming its path', () => {
    const error = refusal('{"credentialSubject": {"id": "did:example:1", "name": "Ada", "name": "Bob"}}', 'credential.json');
    expect(error.message).toBe('credential.json: duplicate key "name" at credentialSubject (JSON objects must not repeat a key)');
    expect(error.field).toBe('credentialSubject.name');
  });

  it('refuses a duplicate key in an object inside an array', () => {
    const error = refusal('{"vc": {"type": ["A"], "evidence": [{"a": 1}, {"b": 2, "b": 3}]}}');
    expect(error.message).toMatch(/duplicate key "b" at vc\.evidence\[1\] /);
    expect(error.field).toBe('vc.evidence[1].b');
  });

  it('compares keys after unescaping: "a" and "\\u0061" are the same key', () => {
    expect(refusal('{"a": 1, "\\u0061": 2}').message).toMatch(/duplicate key "a" at the top level/);
    expect(refusal('{"x": {"\\"q": 1, "\\u0022q": 2}}').message).toMatch(/duplicate key "\\"q" at x /);
  });

  it('finds a duplicate among many keys, and allows the same key in sibling objects', () => {
    const keys = Array.from({ length: 200 }, (_, k) => `"k${k}": ${k}`);
    expect(Object.keys(parseJsonText(`{${keys.join(',')}}`, 'input.json') as object)).toHaveLength(200);
    expect(refusal(`{${keys.join(',')}, "k150": 0}`).field).toBe('k150');
    expect(parseJsonText('[{"a": 1}, {"a": 2}, {"b": {"a": 3}}]', 'input.json')).toEqual([{ a: 1 }, { a: 2 }, { b: { a: 3 } }]);
  });

  it(`accepts ${MAX_JSON_DEPTH} levels of nesting and refuses ${MAX_JSON_DEPTH + 1}`, () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(() => parseJsonText(nestedArrays(64), 'input.json')).not.toThrow();
    const error = refusal(nestedArrays(65), 'request body');
    expect(error.message).toMatch(/^request body: nested deeper than 64 levels at \[0\]\[0\]/);
    const objects = `{"vc": {"credentialSubject": ${'{"a": '.repeat(70)}1${'}'.repeat(72)}`;
    const deep = refusal(objects, 'request body');
    expect(deep.message).toMatch(/^request body: nested deeper than 64 levels at vc\.credentialSubject\.a\.a.*\.\.\.$/);
    expect(deep.message.length).toBeLessThan(200);
    expect(refusal(nestedArrays(3), 'input.json', 2).message).toMatch(/nested deeper than 2 levels/);
  });

  it('refuses 100,000 levels of nesting without overflowing the stack', () => {
    expect(refusal('['.repeat(100_000), 'request body').message).toMatch(/nested deeper than 64 levels/);
    expect(refusal('{"a":'.repeat(100_000), 'request body').message).toMatch(/nested deeper than 64 levels at a\.a\.a/);
    // Even with no depth limit the scan is iterative: the syntax error is found, not a RangeError.
    expect(refusal(nestedArrays(100_000).slice(0, -1), 'input.json', Number.POSITIVE_INFINITY).message).toMatch(/is not valid JSON/);
  });

  it('refuses an integer beyond 2^53 with its path', () => {
    const error = refusal('{"credentialSubject": {"score": 9007199254740993}}', 'subject.json');
    expect(error.message).toBe('subject.json: credentialSubject.score: the integer 9007199254740993 is beyond 2^53 and would silently change (write it as a string)');
    expect(error.field).toBe('credentialSubject.score');
    expect(refusal('[1, -9007199254740992]').message).toMatch(/\[1\]: the integer -9007199254740992 is beyond -2\^53/);
    expect(refusal('9007199254740992', 'subject.json').field).toBe('subject.json');
    expect(refusal(`[${'9'.repeat(400)}]`).message).toMatch(/the integer 9{20}… \(400 digits\)/);
  });

  it('accepts safe integers and leaves numbers with a fraction or exponent to JSON.parse', () => {
    expect(parseJsonText('[9007199254740991, -9007199254740991, 1e300, 1.5, 9007199254740993.0, 12345678901234567890e0, 0]', 'input.json')).toEqual([
      9007199254740991, -9007199254740991, 1e300, 1.5, 9007199254740992, 12345678901234567890, 0,
    ]);
  });

  it('refuses a __proto__ key at any depth, escaped or not, naming where (JavaScript readers drop it or make it the prototype)', () => {
    const top = refusal('{"__proto__": {"polluted": true}, "a": 1}');
    expect(top.message).toBe('input.json: the key "__proto__" at the top level is not accepted (JavaScript readers drop it or take it as the object\'s prototype, so the document would not say the same to every reader)');
    expect(top.field).toBe('__proto__');
    // What a zod record would have dropped, leaving {} (a disclosure) where a comparison was asked.
    const nested = refusal('{"type": "T", "credentialSubject": {"birthDate": {"__proto__": {"$lt": 20010101}}}}', 'query.json');
    expect(nested.message).toMatch(/^query\.json: the key "__proto__" at credentialSubject\.birthDate is not accepted/);
    expect(nested.field).toBe('credentialSubject.birthDate.__proto__');
    expect(refusal('[{"a": [{"\\u005f_proto__": 1}]}]').message).toMatch(/the key "__proto__" at \[0\]\.a\[0\] is not accepted/);
    expect(refusal('{"__proto__": 1, "__proto__": 2}').message).toMatch(/the key "__proto__" at the top level/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // A value "__proto__", or a key that only contains it, is data like any other.
    expect(parseJsonText('{"a": "__proto__", "__proto__x": 1, "x__proto__": 2}', 'input.json')).toEqual({ a: '__proto__', __proto__x: 1, x__proto__: 2 });
  });

  it.each([
    ['', /input\.json is not valid JSON \(the input is empty\)/],
    ['{"vc": ', /input\.json is not valid JSON \(expected a JSON value, found end of input at line 1 column 8, in vc\)/],
    ['{"a": 1,}', /expected a quoted key, found character "}" at line 1 column 9\)$/],
    ['{"x": [{"a": 1}, {1: 2}]}', /expected a quoted key, found character "1" at line 1 column 19, in x\[1\]\)$/],
    ['[1, 2', /expected ',' or '\]' after a value in an array/],
    ['{"a" 1}', /expected ':' after the key/],
    ['{} {}', /expected the end of the input after the top-level value/],
    ['{"a": {"b": 1}} x', /expected the end of the input after the top-level value, found character "x" at line 1 column 17\)$/],
    ['"bad \\x escape"', /bad escape "\\\\x" in a string/],
    ['"raw\nnewline"', /unescaped control character U\+000A in a string/],
    ['"unterminated', /a string is not closed/],
    ['[01]', /expected ',' or '\]'/],
    ['[1.]', /expected a digit/],
    ['[tru]', /expected a JSON value/],
    ["{'a': 1}", /expected a quoted key/],
    ['\ufeff{}', /byte order mark/],
  ])('refuses the syntax error in %j', (text, pattern) => {
    const error = refusal(text);
    expect(error.message).toMatch(/^input\.json is not valid JSON \(/);
    expect(error.message).toMatch(pattern);
    expect(error.code).toBe('invalid_json');
  });

  it('agrees with JSON.parse on what is valid', () => {
    const samples = ['{}', '[]', '0', '-0', '"\\ud800"', '{"a":[{"b":null}]}', ' \t\r\n[ 1 , 2 ] ', '[1e+5, 1E-5, -0.0]', '"\\/\\b\\f\\n\\r\\t"', '[-]', '[.5]', '[+1]', '[1e]', 'nul', '[NaN]', '"\t"'];
    for (const text of samples) {
      let expected: unknown;
      let valid = true;
      try {
        expected = JSON.parse(text);
      } catch {
        valid = false;
      }
      if (valid) expect(parseJsonText(text, 'input.json'), text).toEqual(expected);
      else expect(() => parseJsonText(text, 'input.json'), text).toThrow(InvalidJsonError);
    }
  });

  // Its time against JSON.parse (a quadratic scan would take seconds): bench/serverEdges.ts.
  it('parses a 1 MiB body, and an object of 100,000 keys, as JSON.parse does', () => {
    const subject = { id: 'did:example:123', name: 'Ada Lovelace', nationality: 'GBR', birthDate: 18151210, tags: [1, 2.5, 'x', true, null], address: { city: 'London' } };
    const items: unknown[] = [];
    let body = '';
    while (body.length < 1 << 20) {
      for (let k = 0; k < 500; k++) items.push({ ...subject, n: items.length });
      body = JSON.stringify({ vc: { credentialSubject: { items } } });
    }
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 100_000 }, (_, k) => [`key${k}`, k])));
    expect(body.length).toBeGreaterThanOrEqual(1 << 20);
    for (const text of [body, wide]) expect(parseJsonText(text, 'request body')).toEqual(JSON.parse(text));
  });
});

describe('vc reads input files with the strict parser', () => {
  const home = path.join(tmp.dir, 'home');

  it('refuses a credential file with a duplicate key: exit code 2, one line naming the file and the key', () => {
    const file = path.join(tmp.dir, 'credential.json');
    writeFileSync(file, '{"@context": ["https://www.w3.org/2018/credentials/v1"], "type": ["VerifiableCredential"], "credentialSubject": {"name": "Ada", "name": "Bob"}}');
    const run = runVc(['verifier', 'verify', '--vc', file], { home });
    expect(run.status, run.stderr).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: --vc: .*credential\.json: duplicate key "name" at credentialSubject \(JSON objects must not repeat a key\)$/);
    expect(run.stdout).toBe('');
  });

  it('refuses an unsafe integer and too deep nesting in an input file', () => {
    const file = path.join(tmp.dir, 'subject.json');
    writeFileSync(file, '{"vc": {"credentialSubject": {"score": 9007199254740993}}}');
    const unsafe = runVc(['verifier', 'verify', '--vc', file], { home });
    expect(unsafe.status, unsafe.stderr).toBe(2);
    expect(unsafe.stderr.trim()).toMatch(/^error: --vc: .*subject\.json: vc\.credentialSubject\.score: the integer 9007199254740993 is beyond 2\^53/);
    writeFileSync(file, nestedArrays(100_000));
    const deep = runVc(['verifier', 'verify', '--vc', file], { home });
    expect(deep.status, deep.stderr).toBe(2);
    expect(deep.stderr.trim().split('\n')).toHaveLength(1);
    expect(deep.stderr).toMatch(/nested deeper than 64 levels/);
  });
});
