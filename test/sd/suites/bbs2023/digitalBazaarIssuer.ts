/**
 * An issuer and holder built on Digital Bazaar's libraries alone (@digitalbazaar/bbs-2023-cryptosuite,
 * @digitalbazaar/data-integrity, @digitalbazaar/vc, @digitalbazaar/bls12-381-multikey), with a
 * document loader of its own made from the npm packages that publish the W3C contexts: the other
 * side of vc's interop tests, which never goes through vc's code.
 *
 * `sign` and `derive` use vc.js (its own credential checks included) when it accepts the document,
 * and otherwise the cryptosuite directly (DataIntegrityProof.createProof / derive): the data model
 * tests need credentials that break a rule vc.js does not check, or one it does, signed all the
 * same, so that vc's refusal is its own rule and not a broken signature.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT } from '../../../helpers.js';

type Json = Record<string, unknown>;

const require = createRequire(import.meta.url);

/** A context file of an npm package (its contexts/ folder), found by climbing from the package's entry point to its manifest. */
function packagedContext(name: string, file: string): unknown {
  let directory = path.dirname(require.resolve(name));
  while (!existsSync(path.join(directory, 'package.json')) || (JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as { name?: string }).name !== name) {
    directory = path.dirname(directory);
  }
  return JSON.parse(readFileSync(path.join(directory, 'contexts', file), 'utf8')) as unknown;
}

/** The official documents this issuer's loader serves: URL -> document. */
function contexts(): Map<string, unknown> {
  const fixture = (file: string): unknown => JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'contexts', file), 'utf8')) as unknown;
  return new Map<string, unknown>([
    ['https://www.w3.org/ns/credentials/v2', packagedContext('@digitalbazaar/credentials-context', 'v2.jsonld')],
    ['https://www.w3.org/ns/credentials/undefined-terms/v2', packagedContext('@digitalbazaar/credentials-context', 'undefined-terms-v2.jsonld')],
    ['https://w3id.org/security/data-integrity/v2', packagedContext('@digitalbazaar/data-integrity-context', 'data-integrity-v2.jsonld')],
    ['https://w3id.org/security/multikey/v1', packagedContext('@digitalbazaar/multikey-context', 'multikey-v1.jsonld')],
    // Official documents kept as fixtures (their sources are named in fixtures/contexts/README.md).
    ['https://www.w3.org/ns/credentials/examples/v2', fixture('credentials-examples-v2.json')],
    ['https://www.w3.org/ns/did/v1', fixture('did-v1.json')],
  ]);
}

export interface DigitalBazaarIssuer {
  did: string;
  verificationMethod: string;
  documentLoader: (url: string) => Promise<{ contextUrl: null; documentUrl: string; document: unknown }>;
  /** The credential with a bbs-2023 base proof; `checked` is false when vc.js refused it and the cryptosuite signed it directly. */
  sign(credential: Json, mandatoryPointers?: string[]): Promise<{ signed: Json; checked: boolean }>;
  /** A disclosure of `selectivePointers` (plus the mandatory ones), bound to `presentationHeader`. */
  derive(signed: Json, selectivePointers: string[], presentationHeader?: Uint8Array): Promise<Json>;
  /** Whether the bbs-2023 proof of a derived credential holds for its key's assertion method, checked by the cryptosuite alone (no credential rules, no issuer binding). */
  proofHolds(derived: Json): Promise<boolean>;
}

/** A Digital Bazaar issuer with a fresh BBS key (BLS12-381 G2, did:key). */
export async function digitalBazaarIssuer(): Promise<DigitalBazaarIssuer> {
  const multikey = await import('@digitalbazaar/bls12-381-multikey');
  const cryptosuite = await import('@digitalbazaar/bbs-2023-cryptosuite');
  const { DataIntegrityProof } = await import('@digitalbazaar/data-integrity');
  const vcjs = await import('@digitalbazaar/vc');
  const keyPair = await multikey.generateBbsKeyPair({ algorithm: multikey.ALGORITHMS.BBS_BLS12381_SHA256 });
  const { publicKeyMultibase } = await keyPair.export({ publicKey: true });
  const did = `did:key:${publicKeyMultibase}`;
  const verificationMethod = `${did}#${publicKeyMultibase}`;
  keyPair.controller = did;
  keyPair.id = verificationMethod;
  const known = contexts();
  const documentLoader = async (url: string) => {
    const document = known.get(url);
    if (document !== undefined) return { contextUrl: null, documentUrl: url, document: structuredClone(document) };
    if (url === did || url === verificationMethod) {
      const method = { id: verificationMethod, type: 'Multikey', controller: did, publicKeyMultibase };
      const resolved =
        url === verificationMethod
          ? { '@context': 'https://w3id.org/security/multikey/v1', ...method }
          : { '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'], id: did, verificationMethod: [method], assertionMethod: [verificationMethod] };
      return { contextUrl: null, documentUrl: url, document: resolved };
    }
    throw new Error(`the Digital Bazaar issuer's loader does not hold ${url}`);
  };
  const purpose = (): unknown => new vcjs.CredentialIssuancePurpose();
  type Suite = { createProof(options: object): Promise<Json>; derive(options: object): Promise<Json>; verifyProof(options: object): Promise<{ verified: boolean }> };

  return {
    did,
    verificationMethod,
    documentLoader,
    async sign(credential, mandatoryPointers = ['/issuer']) {
      const suite = (): Suite => new DataIntegrityProof({ signer: keyPair.signer(), cryptosuite: cryptosuite.createSignCryptosuite({ mandatoryPointers }) }) as unknown as Suite;
      try {
        return { signed: await vcjs.issue({ credential: structuredClone(credential), suite: suite(), documentLoader }), checked: true };
      } catch {
        const document = structuredClone(credential);
        const proof = await suite().createProof({ document, purpose: purpose(), proofSet: [], documentLoader });
        return { signed: { ...document, proof }, checked: false };
      }
    },
    async derive(signed, selectivePointers, presentationHeader = new Uint8Array(32).fill(5)) {
      const suite = (): Suite =>
        new DataIntegrityProof({ cryptosuite: cryptosuite.createDiscloseCryptosuite({ selectivePointers, presentationHeader }) }) as unknown as Suite;
      try {
        return await vcjs.derive({ verifiableCredential: structuredClone(signed), suite: suite(), documentLoader });
      } catch {
        const { proof, ...document } = structuredClone(signed);
        return suite().derive({ document, purpose: purpose(), proofSet: [proof], documentLoader });
      }
    },
    async proofHolds(derived) {
      const { proof, ...document } = structuredClone(derived);
      const suite = new DataIntegrityProof({ cryptosuite: cryptosuite.createVerifyCryptosuite() }) as unknown as Suite;
      try {
        // jsonld-signatures' AssertionProofPurpose, the parent class of vc.js's issuance purpose.
        const AssertionProofPurpose = Object.getPrototypeOf(vcjs.CredentialIssuancePurpose) as new () => unknown;
        return (await suite.verifyProof({ proof, proofSet: [proof], document, documentLoader, purpose: new AssertionProofPurpose() })).verified;
      } catch {
        return false;
      }
    },
  };
}
