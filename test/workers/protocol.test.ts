/**
 * Errors crossing the thread boundary (src/workers/protocol.ts): every error class of vc comes
 * back as the same class with the same code, HTTP status, exit code, field, details and message
 * (and its own fields, such as an unknown document's URL or Retry-After seconds); a library error
 * comes back as the sentence describeProofError gave for it where it happened.
 */
import { describe, expect, it } from 'vitest';
import { UnknownDocumentError } from '../../src/sd/documentLoader.js';
import { MalformedProofValueError } from '../../src/sd/suites/bbs2020/proofValue.js';
import { describeProofError, PROOF_UNPROCESSABLE_REASON } from '../../src/sd/suites/bbs2020/bbs2020Suite.js';
import { DescribedProofError } from '../../src/sd/proofOutcome.js';
import * as errors from '../../src/errors.js';
import { reviveError, serializeError, type ErrorClass } from '../../src/workers/protocol.js';

const CLASSES: ErrorClass[] = [UnknownDocumentError, MalformedProofValueError, DescribedProofError];
const OWN = ['MalformedProofValueError', 'DescribedProofError'];

/** Through structured cloning, as postMessage does. */
function across(error: unknown): Error {
  return reviveError(structuredClone(serializeError(error, { own: OWN, describe: describeProofError })), CLASSES, 42);
}

function observable(error: Error): Record<string, unknown> {
  const e = error as Error & Record<string, unknown>;
  return {
    class: e.constructor,
    name: e.name,
    message: e.message,
    code: e.code,
    httpStatus: e.httpStatus,
    exitCode: e.exitCode,
    field: e.field,
    details: e.details,
    url: e.url,
    retryAfterSeconds: e.retryAfterSeconds,
    vc: errors.isVcError(e),
    described: describeProofError(e),
  };
}

const vcErrorClasses = (Object.values(errors) as unknown[]).filter(
  (value): value is new (message: string, options?: errors.VcErrorOptions) => errors.VcError => typeof value === 'function' && (value === errors.VcError || (value.prototype as unknown) instanceof errors.VcError),
);

describe('errors across threads', () => {
  it('covers every class of src/errors.ts', () => {
    expect(vcErrorClasses.map((c) => c.name).sort()).toEqual(
      ['ConfigError', 'ConflictError', 'DataModelError', 'InputError', 'InternalError', 'NetworkError', 'NotFoundError', 'OverloadedError', 'StoreError', 'TooLargeError', 'UnprocessableError', 'VcError', 'VerificationError'].sort(),
    );
  });

  it.each(vcErrorClasses.map((c) => [c.name, c] as const))('%s keeps its class, code, status, exit code, field, details and message', (_name, Class) => {
    const original = new Class('what went wrong, in vc\'s words', { field: 'credentialSubject.name', details: 'more' });
    const revived = across(original);
    expect(revived).toBeInstanceOf(Class);
    expect(observable(revived)).toEqual(observable(original));
    expect(revived.stack).toMatch(/in worker thread 42/);
  });

  it('keeps the fields of its own: the URL of an unknown document, the seconds of Retry-After, the data-model check', () => {
    for (const original of [new UnknownDocumentError('https://evil.example/ctx'), new errors.OverloadedError('busy', { retryAfterSeconds: 7 })]) {
      const revived = across(original);
      expect(observable(revived)).toEqual(observable(original));
    }
    expect((across(new errors.OverloadedError('busy', { retryAfterSeconds: 7 })) as errors.OverloadedError).retryAfterSeconds).toBe(7);
    const ruleBroken = across(new errors.DataModelError('validFrom: after validUntil', 'data-model:validity-order', { field: 'validFrom' }));
    expect(ruleBroken).toBeInstanceOf(errors.DataModelError);
    expect((ruleBroken as errors.DataModelError).check).toBe('data-model:validity-order');
  });

  it('a malformed proof value stays MalformedProofValueError, recognised by describeProofError', () => {
    const revived = across(new MalformedProofValueError('proofValue is truncated'));
    expect(revived).toBeInstanceOf(MalformedProofValueError);
    expect(describeProofError(revived)).toBe('proofValue is truncated');
  });

  it('a library error arrives with the sentence describeProofError gave for it there', () => {
    // jsonld wraps a loader failure; the cause is vc's own error.
    const wrapped = Object.assign(new Error('loading remote context failed'), { details: { cause: new UnknownDocumentError('https://evil.example/ctx') } });
    const revived = across(wrapped);
    expect(revived).toBeInstanceOf(DescribedProofError);
    expect(errors.isVcError(revived)).toBe(false);
    expect(describeProofError(revived)).toBe(describeProofError(wrapped));
    expect(describeProofError(revived)).toMatch(/^unknown JSON-LD context https:\/\/evil\.example\/ctx: add it with `vc documents add https:\/\/evil\.example\/ctx FILE`/);
    expect(describeProofError(across(new TypeError('Object.defineProperty called on non-object')))).toBe(PROOF_UNPROCESSABLE_REASON);
  });

  it('a VcError subclass the main thread does not know keeps its code, status and exit code as a VcError', () => {
    class TeapotError extends errors.InputError {
      override readonly httpStatus: number = 418;
      override readonly code: string = 'teapot';
    }
    const revived = across(new TeapotError('short and stout', { field: 'spout' }));
    expect(revived).toBeInstanceOf(errors.VcError);
    expect(observable(revived)).toEqual({ ...observable(new TeapotError('short and stout', { field: 'spout' })), class: errors.VcError });
  });
});
