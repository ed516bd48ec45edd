/**
 * Shared by the tests of src/workers: the built worker modules (a worker thread runs JavaScript,
 * so the pool runs dist/ even when the tests run the TypeScript sources: build first), wrapper
 * worker scripts that add a test behaviour in front of the real worker, and a fixed credential.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, tempDir } from '../../helpers.js';

export type Json = Record<string, unknown>;

export const FIXED_PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
export const OTHER_PHRASE = 'letter advice cage absurd amount doctor acoustic avoid letter advice cage above';

const dist = (...parts: string[]): string => pathToFileURL(path.join(ROOT, 'dist', 'src', ...parts)).href;
export const DIST_BBS_WORKER = dist('sd', 'worker', 'bbsWorker.js');
const DIST_LIBRARY = dist('sd', 'library.js');

const scripts = tempDir('vc-workers-scripts-');
/** Removes the wrapper scripts (call in afterAll). */
export const cleanupScripts = scripts.cleanup;

function script(name: string, source: string): URL {
  const file = path.join(scripts.dir, name);
  // The unit files share one process (isolate: false) and this module: another file's afterAll may have removed the folder.
  mkdirSync(scripts.dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, source);
  return pathToFileURL(file);
}

/**
 * A worker that behaves like the real one, except for a call whose first argument carries
 * `testFault`: 'exit' ends the thread (process.exit inside a worker ends that thread), 'throw'
 * raises an uncaught exception (as a WebAssembly trap does), 'hang' loops
 * forever. Its listener runs before the real worker's, which never sees such a call.
 */
export function faultyWorker(): URL {
  return script(
    'faulty-worker.mjs',
    `import { parentPort } from 'node:worker_threads';
parentPort.on('message', (message) => {
  const fault = message?.args?.[0]?.testFault;
  if (fault === 'exit') process.exit(7);
  if (fault === 'throw') throw new Error('uncaught in the worker');
  if (fault === 'hang') for (;;) {}
});
await import(${JSON.stringify(DIST_BBS_WORKER)});
`,
  );
}

/**
 * A worker whose BBS+ random source is broken before the libraries load (the same injection
 * test/bbs/randomness.test.ts uses): 'zero' fills with zeros, 'noop' leaves buffers as they are
 * (the original bug).
 */
export function brokenRandomWorker(kind: 'zero' | 'noop'): URL {
  return script(
    `broken-random-${kind}-worker.mjs`,
    `import { injectBbsRandomSourceForTesting } from ${JSON.stringify(DIST_LIBRARY)};
injectBbsRandomSourceForTesting(${kind === 'zero' ? '(buffer) => buffer.fill(0)' : '() => undefined'});
await import(${JSON.stringify(DIST_BBS_WORKER)});
`,
  );
}

/** The fixed unsigned passport credential of `issuer` (as vc issues it, with a fixed id and date). */
export function passportCredential(issuer: string): Json {
  return {
    '@context': ['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/security/bbs/v1', 'https://vc.example/contexts/sd-passport/v1'],
    id: 'urn:uuid:6f1c1d2e-0000-4000-8000-000000000001',
    type: ['VerifiableCredential', 'PassportCredential'],
    issuer,
    issuanceDate: '2030-01-01T00:00:00.000Z',
    credentialSchema: { id: 'https://vc.example/schemas/sd-passport/v1.json', type: 'JsonSchema2023' },
    credentialSubject: {
      id: 'did:example:alice',
      name: 'Alice',
      passportNumber: 'P1234567',
      nationality: 'NLD',
      birthDate: 19900101,
      expiryDate: 20340101,
    },
  };
}

/** The frame revealing the subject's name and nationality (and id), as `vc holder disclose` builds it. */
export function revealFrame(credential: Json): Json {
  return {
    '@context': credential['@context'],
    type: credential.type,
    '@explicit': true,
    issuer: {},
    issuanceDate: {},
    credentialSchema: {},
    credentialSubject: { '@explicit': true, name: {}, nationality: {} },
  };
}

/** The bytes of a document's proofValue. */
export function proofBytes(document: Json): Buffer {
  return Buffer.from((document.proof as Json).proofValue as string, 'base64');
}

/** The first `size`-byte run that `a` and `b` share, at any offsets, or undefined. */
export function sharedWindow(a: Uint8Array, b: Uint8Array, size = 16): string | undefined {
  const seen = new Set<string>();
  for (let i = 0; i + size <= a.length; i++) seen.add(Buffer.from(a.subarray(i, i + size)).toString('hex'));
  for (let j = 0; j + size <= b.length; j++) {
    const key = Buffer.from(b.subarray(j, j + size)).toString('hex');
    if (seen.has(key)) return key;
  }
  return undefined;
}
