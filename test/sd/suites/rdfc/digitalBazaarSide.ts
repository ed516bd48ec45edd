/**
 * The other side of the interop tests of eddsa-rdfc-2022, ecdsa-rdfc-2019 and presentations: an
 * issuer, a holder and a verifier built on Digital Bazaar's libraries alone (no code of vc). Its
 * document loader serves the contexts from the packages that publish them (and vc's passport
 * context from its fixture file), and resolves did:key the way the did:key method defines it, with
 * the key decoded by Digital Bazaar's own multikey libraries.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cryptosuite as eddsaCryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { cryptosuite as ecdsaCryptosuite } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import * as EcdsaMultikey from '@digitalbazaar/ecdsa-multikey';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import * as vcjs from '@digitalbazaar/vc';
import { ROOT } from '../../../helpers.js';

type Json = Record<string, unknown>;

const MULTIKEY_V1 = 'https://w3id.org/security/multikey/v1';

async function packageContexts(): Promise<Map<string, unknown>> {
  const contexts = new Map<string, unknown>();
  const packages = ['@digitalbazaar/credentials-context', '@digitalbazaar/data-integrity-context', '@digitalbazaar/multikey-context', '@digitalbazaar/vdl-context'];
  for (const name of packages) {
    const module = (await import(name)) as { contexts: Map<string, unknown> };
    for (const [url, document] of module.contexts) contexts.set(url, document);
  }
  contexts.set('https://vc.example/contexts/sd-passport/v2', JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'contexts', 'sd-passport-v2.json'), 'utf8')));
  return contexts;
}

/** Digital Bazaar's side: a document loader that never fetches. */
export async function digitalBazaarLoader(): Promise<(url: string) => Promise<{ contextUrl: null; documentUrl: string; document: unknown }>> {
  const contexts = await packageContexts();
  return async (url: string) => {
    const context = contexts.get(url);
    if (context !== undefined) return { contextUrl: null, documentUrl: url, document: structuredClone(context) };
    if (url.startsWith('did:key:z')) {
      const [did, fragment] = url.split('#') as [string, string | undefined];
      const multibase = did.slice('did:key:'.length);
      // The libraries decode the key: ECDSA's reads the multicodec header (and refuses others), Ed25519's is the rest.
      const multikey = { '@context': MULTIKEY_V1, type: 'Multikey', id: `${did}#${multibase}`, controller: did, publicKeyMultibase: multibase };
      await EcdsaMultikey.from(multikey).catch(() => Ed25519Multikey.from(multikey));
      const method = { id: `${did}#${multibase}`, type: 'Multikey', controller: did, publicKeyMultibase: multibase };
      if (fragment !== undefined) return { contextUrl: null, documentUrl: url, document: { '@context': MULTIKEY_V1, ...method } };
      const document = { '@context': ['https://www.w3.org/ns/did/v1', MULTIKEY_V1], id: did, verificationMethod: [method], assertionMethod: [method.id], authentication: [method.id] };
      return { contextUrl: null, documentUrl: url, document };
    }
    throw new Error(`the Digital Bazaar side has no document ${url}`);
  };
}

/** A key of Digital Bazaar's side, with its did:key. */
export interface DigitalBazaarKey {
  did: string;
  verificationMethod: string;
  suite: 'eddsa-rdfc-2022' | 'ecdsa-rdfc-2019';
  signer: unknown;
}

/** A new key made by Digital Bazaar's libraries: Ed25519 (eddsa-rdfc-2022), P-256 or P-384 (ecdsa-rdfc-2019). */
export async function digitalBazaarKey(keyType: 'Ed25519' | 'P-256' | 'P-384'): Promise<DigitalBazaarKey> {
  const keyPair = keyType === 'Ed25519' ? await Ed25519Multikey.generate() : await EcdsaMultikey.generate({ curve: keyType });
  const { publicKeyMultibase } = await keyPair.export({ publicKey: true });
  const did = `did:key:${publicKeyMultibase!}`;
  keyPair.id = `${did}#${publicKeyMultibase!}`;
  keyPair.controller = did;
  return { did, verificationMethod: keyPair.id, suite: keyType === 'Ed25519' ? 'eddsa-rdfc-2022' : 'ecdsa-rdfc-2019', signer: keyPair.signer() };
}

function cryptosuiteOf(suite: DigitalBazaarKey['suite']): unknown {
  return suite === 'eddsa-rdfc-2022' ? eddsaCryptosuite : ecdsaCryptosuite;
}

/** Digital Bazaar's vc.issue with the key's suite. */
export async function digitalBazaarIssue(credential: Json, key: DigitalBazaarKey): Promise<Json> {
  const suite = new DataIntegrityProof({ signer: key.signer, cryptosuite: cryptosuiteOf(key.suite) });
  return vcjs.issue({ credential: structuredClone(credential), suite, documentLoader: await digitalBazaarLoader() });
}

/** Digital Bazaar's vc.createPresentation + vc.signPresentation. */
export async function digitalBazaarPresent(credentials: Json[], key: DigitalBazaarKey, challenge: string, domain: string): Promise<Json> {
  const presentation = vcjs.createPresentation({ verifiableCredential: structuredClone(credentials), holder: key.did });
  const suite = new DataIntegrityProof({ signer: key.signer, cryptosuite: cryptosuiteOf(key.suite) });
  return vcjs.signPresentation({ presentation, suite, challenge, domain, documentLoader: await digitalBazaarLoader() });
}

/** Both verifying suites of Digital Bazaar's side. */
function verifySuites(): unknown[] {
  return [new DataIntegrityProof({ cryptosuite: eddsaCryptosuite }), new DataIntegrityProof({ cryptosuite: ecdsaCryptosuite })];
}

/** Digital Bazaar's vc.verifyCredential. */
export async function digitalBazaarVerifyCredential(credential: Json): Promise<{ verified: boolean; error?: unknown }> {
  return vcjs.verifyCredential({ credential, suite: verifySuites(), documentLoader: await digitalBazaarLoader() });
}

/** Digital Bazaar's vc.verify of a presentation (its proof and every credential inside). */
export async function digitalBazaarVerifyPresentation(presentation: Json, challenge: string, domain: string): Promise<{ verified: boolean; error?: unknown }> {
  return vcjs.verify({ presentation, suite: verifySuites(), challenge, domain, documentLoader: await digitalBazaarLoader() });
}
