/**
 * Interoperability with MATTR's BbsBlsSignature2020 as its library produces and verifies it: what
 * vc issues and derives verifies with @mattrglobal/jsonld-signatures-bbs called directly, and what
 * that library derives verifies with vc. (vc still runs MATTR's WebAssembly, with its random source
 * fixed by src/sd/library.ts; these tests keep that change honest about the format.)
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../src/config/parse.js';
import { Context } from '../../../../src/context.js';
import { bbsLibraries } from '../../../../src/sd/library.js';
import { createStaticDocumentLoader } from '../../../../src/sd/documentLoader.js';
import { deriveSelectiveDisclosure, issueSelectiveDisclosureCredential, verifySelectiveDisclosure } from '../../../../src/core/sd/index.js';
import { tempDir } from '../../../helpers.js';
import { holdDirectly } from '../../../core/holder/support.js';

const FIXED_PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const tmp = tempDir('vc-bbs-interop-');
let ctx: Context;
const documentLoader = createStaticDocumentLoader();

beforeAll(async () => {
  // The same module instances the door loaded: the direct calls below get its random source.
  await bbsLibraries();
  ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE }, path.join(tmp.dir, 'home')) });
});
afterAll(async () => {
  await ctx.close();
  tmp.cleanup();
});

async function mattr() {
  const [{ default: jsigs }, { default: bbs }] = await Promise.all([import('jsonld-signatures'), import('@mattrglobal/jsonld-signatures-bbs')]);
  return { jsigs, bbs };
}

describe('MATTR jsonld-signatures-bbs, called directly', () => {
  it('verifies the credential vc issues (BbsBlsSignature2020) and the proof vc derives (BbsBlsSignatureProof2020)', async () => {
    const { jsigs, bbs } = await mattr();
    const issued = await issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:alice' });
    holdDirectly(ctx, issued);
    const signature = await jsigs.verify(structuredClone(issued), { suite: new bbs.BbsBlsSignature2020(), purpose: new jsigs.purposes.AssertionProofPurpose(), documentLoader });
    expect(signature.verified).toBe(true);

    const { vc } = await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['id', 'name', 'nationality'] });
    const derived = await jsigs.verify(structuredClone(vc), { suite: new bbs.BbsBlsSignatureProof2020(), purpose: new jsigs.purposes.AssertionProofPurpose(), documentLoader });
    expect(derived.verified).toBe(true);

    // And the library is not simply accepting anything: a changed value fails there too.
    const changed = structuredClone(vc);
    (changed.credentialSubject as Record<string, unknown>).name = 'Mallory';
    const tampered = await jsigs.verify(changed, { suite: new bbs.BbsBlsSignatureProof2020(), purpose: new jsigs.purposes.AssertionProofPurpose(), documentLoader });
    expect(tampered.verified).toBe(false);
  });

  it('vc verifies a proof the library derives directly, with its own frame and nonce', async () => {
    const { bbs } = await mattr();
    const issued = await issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:bob' });
    const frame = {
      '@context': issued['@context'],
      type: ['VerifiableCredential', 'PassportCredential'],
      '@explicit': true,
      issuer: {},
      issuanceDate: {},
      credentialSubject: { '@explicit': true, nationality: {} },
    };
    const nonce = new Uint8Array(Buffer.from('interop nonce chosen by the holder'));
    const derived = (await bbs.deriveProof(structuredClone(issued), frame, { suite: new bbs.BbsBlsSignatureProof2020(), documentLoader, nonce })) as Record<string, unknown>;
    const result = await verifySelectiveDisclosure(ctx, { vc: derived });
    expect(result.verified, JSON.stringify(result.checks)).toBe(true);
    expect(result.message).toBe('user has been verified successfully');
    expect(JSON.stringify(derived)).not.toContain('X1234567');
  });
});

describe('one door to the BBS+ libraries', () => {
  it('no module of src/ or bench/ loads a MATTR library except src/sd/library.ts (other copies have the broken random source)', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { ROOT } = await import('../../../helpers.js');
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts') && !full.endsWith(path.join('src', 'sd', 'library.ts'))) {
          readFileSync(full, 'utf8')
            .split('\n')
            .forEach((line, index) => {
              // Type-only references (`typeof import(...)`, `import type`) load nothing.
              if (/(?<!typeof )(from\s+|import\(|require\()\s*['"]@mattrglobal\//.test(line) && !/^\s*import type /.test(line)) offenders.push(`${path.relative(ROOT, full)}:${index + 1}`);
            });
        }
      }
    };
    walk(path.join(ROOT, 'src'));
    walk(path.join(ROOT, 'bench'));
    expect(offenders).toEqual([]);
  });
});
