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
