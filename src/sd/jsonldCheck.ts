/**
 * JSON-LD safe-mode check: a property, type or id that does not expand to an absolute IRI is
 * silently dropped by JSON-LD, so it would be neither signed nor verified while a JSON reader still
 * sees it. Issuing refuses such documents and verifying reports them.
 */
import type { DocumentLoader } from './documentLoader.js';
import { shortId } from './didKey.js';
import { describeProofError } from './suites/bbs2020/bbs2020Suite.js';

interface SafeModeEvent {
  code?: string;
  details?: { property?: string; type?: string; id?: string };
}

/** Returns why `document` would lose data under JSON-LD processing, or undefined when nothing is dropped. */
export async function findUndefinedJsonLdTerms(document: object, documentLoader: DocumentLoader): Promise<string | undefined> {
  const { default: jsonld } = await import('jsonld');
  try {
    await jsonld.expand(structuredClone(document) as Parameters<typeof jsonld.expand>[0], {
      documentLoader: documentLoader as unknown as NonNullable<Parameters<typeof jsonld.expand>[1]>['documentLoader'],
      safe: true,
    } as Parameters<typeof jsonld.expand>[1]);
    return undefined;
  } catch (error) {
    const event = (error as { details?: { event?: SafeModeEvent } }).details?.event;
    const details = event?.details;
    switch (event?.code) {
      case 'invalid property':
        return `field "${shortId(details?.property ?? '?', 60)}" is not defined in any of the credential's JSON-LD contexts (it would not be signed)`;
      case 'relative @type reference':
        return `type "${shortId(details?.type ?? '?', 60)}" is not defined in any of the credential's JSON-LD contexts`;
      case 'relative @id reference':
        return `id "${shortId(details?.id ?? '', 60)}" is not an absolute IRI (use a DID or a urn:uuid:...)`;
      default:
        return event?.code !== undefined ? `the credential is not valid JSON-LD: ${event.code.replace(/[^a-z @]/gi, '')}` : describeProofError(error);
    }
  }
}

/** JSON-LD's code for an attempt to redefine a term a context marked `@protected`. */
export const PROTECTED_TERM_REDEFINITION = 'protected term redefinition';

/** Why a document's `@context` cannot be processed (JSON-LD 1.1 context processing), or undefined. */
export interface JsonLdContextProblem {
  /** JSON-LD's error code, e.g. `protected term redefinition`, `invalid term definition`. */
  code: string;
  /** The term concerned, when JSON-LD names one. */
  term?: string;
  /** A one-line description. */
  reason: string;
}

/**
 * Processes `context` (a document's whole `@context` value) as JSON-LD would before expanding the
 * document: every item must be a context (a URL the loader serves, or an object), no term a
 * previous context protects may be redefined, and every term definition must be valid. Returns
 * the problem, or undefined when the contexts process.
 */
export async function processJsonLdContext(context: unknown, documentLoader: DocumentLoader): Promise<JsonLdContextProblem | undefined> {
  const { default: jsonld } = await import('jsonld');
  const processContext = (jsonld as unknown as { processContext: unknown }).processContext as (active: unknown, local: unknown, options: object) => Promise<unknown>;
  try {
    const initial = await processContext(null, null, {});
    await processContext(initial, structuredClone(context), { documentLoader });
    return undefined;
  } catch (error) {
    const details = (error as { details?: { code?: unknown; term?: unknown; url?: unknown } }).details;
    const code = typeof details?.code === 'string' && /^[a-z @]+$/.test(details.code) ? details.code : 'invalid context';
    const term = typeof details?.term === 'string' ? shortId(details.term, 60) : undefined;
    const url = typeof details?.url === 'string' ? shortId(details.url, 80) : undefined;
    let reason: string;
    if (code === PROTECTED_TERM_REDEFINITION) reason = `the term "${term ?? '?'}" is protected by an earlier context and cannot be redefined`;
    else if (code === 'loading remote context failed') reason = `the context ${url ?? ''} is not bundled with vc (remote contexts are never fetched)`;
    else reason = `the @context cannot be processed as JSON-LD: ${code}${term === undefined ? '' : ` (term "${term}")`}`;
    return term === undefined ? { code, reason } : { code, term, reason };
  }
}
