/**
 * `vc documents add|list|remove` (src/core/documentPins.ts, src/store/pinnedDocuments.ts): the
 * documents others publish, pinned under their URLs. From the command line (in process, and the
 * binary where another process pins or lists while a Context is open): add, list, remove, and
 * the refusals (a bundled URL, a file that is no context or schema, other content under a pinned
 * URL, a context importing one vc lacks, a schema naming another URL). A stored copy changed in
 * the wallet (the SQLite record edited, as another program could) is refused by every loader and
 * by the verifier's context check, naming the URL, until it is added again. And the loaders read
 * the pinned set after the bundled one: a bbs-2023 credential under a context vc does not bundle
 * is refused naming the command that adds it, then signed and verified once it is pinned, in
 * process and in the BBS+ worker threads of `vc serve` (which read the wallet home themselves).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { vcApiIssue, vcApiVerify } from '../../src/core/sd/vcApiCredentials.js';
import { Iden3Documents } from '../../src/iden3/documents.js';
import { loadIden3Modules } from '../../src/iden3/modules.js';
import { createStaticDocumentLoader } from '../../src/sd/documentLoader.js';
import { createBbs2023DocumentLoader } from '../../src/sd/suites/bbs2023/bbs2023Loader.js';
import { BbsWorkerPool } from '../../src/sd/worker/bbsWorkerPool.js';
import { PINNED_CONTENT_NS, PinnedDocumentChangedError, pinnedLookup } from '../../src/store/pinnedDocuments.js';
import { WalletStore } from '../../src/store/store.js';
import { ROOT, runVc, runVcInProcess, tempDir } from '../helpers.js';

type Json = Record<string, unknown>;
const tmp = tempDir('vc-documents-');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'iden3-official');
const KYC_CONTEXT_URL = 'https://raw.githubusercontent.com/iden3/claim-schema-vocab/main/schemas/json-ld/kyc-v3.json-ld';
const KYC_SCHEMA_URL = 'https://raw.githubusercontent.com/iden3/claim-schema-vocab/main/schemas/json/KYCAgeCredential-v3.json';
const KYC_CONTEXT_FILE = path.join(FIXTURES, 'kyc-v3.json-ld');
const KYC_SCHEMA_FILE = path.join(FIXTURES, 'KYCAgeCredential-v3.json');

/** A context of our own for a VC 2.0 credential type that vc does not bundle. */
const LOYALTY_URL = 'https://loyalty.example/contexts/v1';
const LOYALTY_CONTEXT = {
  '@context': {
    '@version': 1.1,
    '@protected': true,
    LoyaltyCredential: 'https://loyalty.example/vocab#LoyaltyCredential',
    tier: 'https://loyalty.example/vocab#tier',
    points: { '@id': 'https://loyalty.example/vocab#points', '@type': 'http://www.w3.org/2001/XMLSchema#integer' },
  },
};
const loyaltyCredential = (): Json => ({
  '@context': ['https://www.w3.org/ns/credentials/v2', LOYALTY_URL],
  type: ['VerifiableCredential', 'LoyaltyCredential'],
  credentialSubject: { id: 'did:example:alice', tier: 'gold', points: 1200 },
});

const file = (name: string, content: unknown): string => {
  const target = path.join(tmp.dir, name);
  writeFileSync(target, typeof content === 'string' ? content : JSON.stringify(content));
  return target;
};
/** `vc --json ARGS` in process (runVcInProcess); the few runVc calls below are another process at work on the same wallet. */
const vc = (home: string, args: string[]) => runVcInProcess(['--json', ...args], { home });
const errorOf = (stderr: string): { code: string; message: string } => {
  expect(stderr).not.toMatch(/internal error|\n\s+at /);
  expect(stderr.trim().split('\n')).toHaveLength(1);
  return (JSON.parse(stderr) as { error: { code: string; message: string } }).error;
};

/** Replaces the stored text of every pinned copy whose text contains `marker` (as another program editing wallet.db could). */
function tamperWith(home: string, marker: string, replace: (text: string) => string): void {
  const db = new Database(path.join(home, 'wallet.db'));
  try {
    const rows = db.prepare('SELECT key, value FROM records WHERE ns = ?').all(PINNED_CONTENT_NS) as Array<{ key: string; value: string }>;
    let changed = 0;
    for (const row of rows) {
      const text = JSON.parse(row.value) as string;
      if (!text.includes(marker)) continue;
      db.prepare('UPDATE records SET value = ? WHERE ns = ? AND key = ?').run(JSON.stringify(replace(text)), PINNED_CONTENT_NS, row.key);
      changed++;
    }
    expect(changed).toBe(1);
  } finally {
    db.close();
  }
}

afterAll(() => tmp.cleanup());

describe('vc documents add, list, remove', () => {
  const home = path.join(tmp.dir, 'cli');

  it('pins the official KYCAgeCredential documents under their URLs, lists and removes them', async () => {
    const schema = await vc(home, ['documents', 'add', KYC_SCHEMA_URL, KYC_SCHEMA_FILE]);
    expect(schema.status, schema.stderr).toBe(0);
    expect(schema.json<Json>()).toMatchObject({ url: KYC_SCHEMA_URL, kind: 'schema', added: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // The schema names its context, which the wallet lacks yet: said whole, with the command.
    expect(schema.json<{ note: string }>().note).toBe(`its JSON-LD context ${KYC_CONTEXT_URL} is not in the wallet yet: add it too (vc documents add ${KYC_CONTEXT_URL} FILE)`);
    expect(schema.stderr).toContain(`vc documents add ${KYC_CONTEXT_URL} FILE`);
    const context = await vc(home, ['documents', 'add', KYC_CONTEXT_URL, KYC_CONTEXT_FILE]);
    expect(context.status, context.stderr).toBe(0);
    expect(context.json<Json>()).toMatchObject({ url: KYC_CONTEXT_URL, kind: 'context', added: true });
    // The same document again changes nothing.
    expect((await vc(home, ['documents', 'add', KYC_CONTEXT_URL, KYC_CONTEXT_FILE])).json<Json>()).toMatchObject({ added: false });

    const listed = (await vc(home, ['documents', 'list'])).json<{ documents: Array<Json> }>().documents;
    expect(listed.map((d) => [d.url, d.kind, d.intact])).toEqual([
      [KYC_CONTEXT_URL, 'context', true],
      [KYC_SCHEMA_URL, 'schema', true],
    ]);

    const removed = await vc(home, ['documents', 'remove', KYC_SCHEMA_URL]);
    expect(removed.status, removed.stderr).toBe(0);
    expect(removed.json<Json>()).toMatchObject({ url: KYC_SCHEMA_URL, removed: true });
    expect((await vc(home, ['documents', 'list'])).json<{ documents: Array<Json> }>().documents.map((d) => d.url)).toEqual([KYC_CONTEXT_URL]);
    const again = await vc(home, ['documents', 'remove', KYC_SCHEMA_URL]);
    expect(again.status).toBe(2);
    expect(errorOf(again.stderr)).toMatchObject({ code: 'not_found', message: `URL: no document is pinned under ${KYC_SCHEMA_URL} (vc documents list shows those that are)` });
  });

  it('refuses what it cannot pin, naming the argument and why (exit 2, nothing written)', async () => {
    const before = (await vc(home, ['documents', 'list'])).json<{ documents: unknown[] }>().documents.length;
    const cases: Array<[string[], string, RegExp]> = [
      [['https://www.w3.org/2018/credentials/v1', KYC_CONTEXT_FILE], 'conflict', /^URL: https:\/\/www\.w3\.org\/2018\/credentials\/v1 is bundled with vc/],
      [['https://other.example/x', path.join(ROOT, 'package.json')], 'unprocessable', /package\.json: expected a JSON-LD context \(an object with @context\) or a JSON schema/],
      [['https://other.example/x', file('not-json.txt', 'hello')], 'invalid_json', /not-json\.txt is not valid JSON/],
      [['not a url', KYC_CONTEXT_FILE], 'invalid_input', /^URL: expected the document's URL \(an absolute IRI/],
      [[KYC_CONTEXT_URL, file('other-kyc.json', { '@context': { other: 'https://other.example/#other' } })], 'conflict', new RegExp(`^URL: ${KYC_CONTEXT_URL.replace(/[.]/g, '\\.')} is pinned already with another content`)],
      [
        ['https://other.example/imports', file('imports.json', { '@context': ['https://third.example/ctx', { x: 'https://other.example/#x' }] })],
        'unprocessable',
        /imports\.json: it imports the context https:\/\/third\.example\/ctx, which vc does not have: add that one first \(vc documents add https:\/\/third\.example\/ctx FILE\)$/,
      ],
      [['https://mirror.example/kyc.json', KYC_SCHEMA_FILE], 'unprocessable', /KYCAgeCredential-v3\.json: the schema names its URL https:\/\/raw\.githubusercontent\.com\/\S+ \(\$metadata\.uris\.jsonSchema\), not https:\/\/mirror\.example\/kyc\.json/],
    ];
    for (const [args, code, message] of cases) {
      const run = await vc(home, ['documents', 'add', ...args]);
      expect(run.status, args.join(' ')).toBe(2);
      const error = errorOf(run.stderr);
      expect(error.code, args.join(' ')).toBe(code);
      expect(error.message, args.join(' ')).toMatch(message);
    }
    expect((await vc(home, ['documents', 'list'])).json<{ documents: unknown[] }>().documents).toHaveLength(before);
  });
});

describe('a stored copy changed in the wallet', () => {
  const home = path.join(tmp.dir, 'tampered');

  it('is refused by every loader and by the verifier, naming the URL, until it is added again', async () => {
    expect((await vc(home, ['documents', 'add', KYC_CONTEXT_URL, KYC_CONTEXT_FILE])).status).toBe(0);
    expect((await vc(home, ['documents', 'add', LOYALTY_URL, file('loyalty.json', LOYALTY_CONTEXT)])).status).toBe(0);
    // The term `birthday` comes to mean something else.
    tamperWith(home, 'kyc-vocab:birthday', (text) => text.replace('kyc-vocab:birthday', 'kyc-vocab:deathday'));

    const listed = await vc(home, ['documents', 'list']);
    expect(listed.json<{ documents: Array<Json> }>().documents.map((d) => [d.url, d.intact])).toEqual([
      [LOYALTY_URL, true],
      [KYC_CONTEXT_URL, false],
    ]);
    expect(runVc(['documents', 'list'], { home }).stderr).toMatch(/2 pinned documents, 1 changed since added \(refused until added again\)/);

    const store = WalletStore.open(home);
    try {
      const lookup = pinnedLookup(store);
      const { sdk } = await loadIden3Modules();
      const loaders = [createStaticDocumentLoader(lookup), createBbs2023DocumentLoader(lookup), new Iden3Documents(store, sdk).loader()];
      for (const loader of loaders) {
        const error = await loader(KYC_CONTEXT_URL).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PinnedDocumentChangedError);
        expect((error as Error).message).toMatch(new RegExp(`^the stored copy of ${KYC_CONTEXT_URL.replace(/[.]/g, '\\.')} changed since it was added \\(sha256 [0-9a-f]{16}\\.\\.\\. recorded, [0-9a-f]{16}\\.\\.\\. found\\); it is not used`));
        // The other pinned document is untouched, and read.
        expect((await loader(LOYALTY_URL)).document).toEqual(LOYALTY_CONTEXT);
      }
    } finally {
      store.close();
    }

    // A verifier given a credential under the changed context refuses it at its context check.
    const presented = {
      '@context': ['https://www.w3.org/2018/credentials/v1', KYC_CONTEXT_URL],
      type: ['VerifiableCredential', 'KYCAgeCredential'],
      issuer: 'did:example:issuer',
      issuanceDate: '2025-01-01T00:00:00Z',
      credentialSubject: { birthday: 19960424 },
      proof: { type: 'BbsBlsSignatureProof2020', verificationMethod: 'did:example:issuer#key', proofValue: 'AA==', nonce: 'AA==' },
    };
    const verified = await vc(home, ['verifier', 'verify', '--credential', file('presented.json', presented)]);
    expect(verified.status).toBe(1);
    const context = verified.json<{ checks: Array<{ id: string; valid: boolean; reason?: string }> }>().checks.find((check) => check.id === 'context');
    expect(context?.valid).toBe(false);
    expect(context?.reason).toMatch(new RegExp(`^the stored copy of ${KYC_CONTEXT_URL.replace(/[.]/g, '\\.')} changed since it was added`));

    // Added again from the file, it is intact and read again.
    const readded = await vc(home, ['documents', 'add', KYC_CONTEXT_URL, KYC_CONTEXT_FILE]);
    expect(readded.status, readded.stderr).toBe(0);
    expect(readded.json<Json>()).toMatchObject({ added: true });
    expect((await vc(home, ['documents', 'list'])).json<{ documents: Array<Json> }>().documents.every((d) => d.intact === true)).toBe(true);
    const again = await vc(home, ['verifier', 'verify', '--credential', file('presented.json', presented)]);
    const recheck = again.json<{ checks: Array<{ id: string; valid: boolean }> }>().checks.find((check) => check.id === 'context');
    expect(recheck?.valid).toBe(true);
  });
});

describe('a pinned record broken by another program', () => {
  it('is listed as not intact, never an internal error, and remove or add mends it', async () => {
    const home = path.join(tmp.dir, 'broken-record');
    expect((await vc(home, ['documents', 'add', LOYALTY_URL, file('loyalty.json', LOYALTY_CONTEXT)])).status).toBe(0);
    for (const broken of ['{not json', '{"url":5}']) {
      const db = new Database(path.join(home, 'wallet.db'));
      try {
        db.prepare("UPDATE records SET value = ? WHERE ns = 'documents.pinned'").run(broken);
      } finally {
        db.close();
      }
      const listed = await vc(home, ['documents', 'list']);
      expect(listed.status, `${broken}: ${listed.stderr}`).toBe(0);
      expect(listed.json<{ documents: Array<{ url: string; intact: boolean }> }>().documents).toMatchObject([{ url: LOYALTY_URL, intact: false }]);
      // Added again over the broken record: mended, intact.
      const again = await vc(home, ['documents', 'add', LOYALTY_URL, file('loyalty.json', LOYALTY_CONTEXT)]);
      expect(again.status, `${broken}: ${again.stderr}`).toBe(0);
      expect((await vc(home, ['documents', 'list'])).json<{ documents: Array<{ intact: boolean }> }>().documents).toMatchObject([{ intact: true }]);
    }
    const db = new Database(path.join(home, 'wallet.db'));
    try {
      db.prepare("UPDATE records SET value = '{not json' WHERE ns = 'documents.pinned'").run();
    } finally {
      db.close();
    }
    const removed = await vc(home, ['documents', 'remove', LOYALTY_URL]);
    expect(removed.status, removed.stderr).toBe(0);
    expect((await vc(home, ['documents', 'list'])).json<{ documents: unknown[] }>().documents).toEqual([]);
  });
});

describe('BBS+ (bbs-2023) under a context vc does not bundle', () => {
  const home = path.join(tmp.dir, 'bbs');

  it('is refused naming the command that adds it, then signed and verified once pinned (in process)', async () => {
    const ctx = new Context({ config: parseConfig({}, home) });
    try {
      const refused = await vcApiIssue(ctx, { credential: loyaltyCredential() }).catch((e: unknown) => e);
      expect((refused as Error).message).toBe(`credential.@context[1]: ${LOYALTY_URL} is not a known context: add it with \`vc documents add ${LOYALTY_URL} FILE\` (remote contexts are never fetched) (check data-model:context-known, VC Data Model 2.0 §4.3)`);
      const pinned = runVc(['documents', 'add', LOYALTY_URL, file('loyalty.json', LOYALTY_CONTEXT)], { home });
      expect(pinned.status, pinned.stderr).toBe(0);
      const { verifiableCredential } = await vcApiIssue(ctx, { credential: loyaltyCredential() });
      expect((await vcApiVerify(ctx, { credential: verifiableCredential })).verified).toBe(true);
      // A changed statement still fails: the pinned context gives the terms their meaning, the proof their values.
      const altered = { ...verifiableCredential, credentialSubject: { ...(verifiableCredential.credentialSubject as Json), points: 99999 } };
      expect((await vcApiVerify(ctx, { credential: altered })).verified).toBe(false);
    } finally {
      await ctx.close();
    }
  });

  it("the BBS+ worker threads read the wallet home's pinned documents; without a home, none", async () => {
    expect((await runVcInProcess(['documents', 'add', LOYALTY_URL, file('loyalty.json', LOYALTY_CONTEXT)], { home })).status).toBe(0);
    const withHome = await BbsWorkerPool.start({ size: 1, home });
    const bundledOnly = await BbsWorkerPool.start({ size: 1 });
    try {
      const document = { ...loyaltyCredential(), issuer: 'did:example:issuer', validFrom: '2025-01-01T00:00:00Z' };
      expect(await withHome.findUndefinedTerms2023(document)).toBeUndefined();
      const refused = await bundledOnly.findUndefinedTerms2023(document).catch((e: unknown) => e);
      expect(String((refused as Error | string | undefined) ?? '')).toMatch(new RegExp(`unknown JSON-LD context ${LOYALTY_URL.replace(/[.]/g, '\\.')}|${LOYALTY_URL.replace(/[.]/g, '\\.')}`));
    } finally {
      await withHome.close();
      await bundledOnly.close();
    }
  });
});
