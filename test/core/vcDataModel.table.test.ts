/**
 * The VC Data Model 2.0 (W3C Recommendation) as a table: one row per normative statement that
 * applies to an issuer or a verifier, with its section, a valid and an invalid document, run
 * through the command line and the VC-API routes of one `vc serve`:
 *
 * - issuer: `vc issuer issue --format bbs-2023 --credential FILE` and POST /credentials/issue sign
 *   the valid document and refuse the invalid one (exit 2 / 422, naming the check);
 * - verifier: the same documents signed and disclosed with Digital Bazaar's libraries directly
 *   (their proof holds), `vc verifier verify --credential FILE` and POST /credentials/verify accept
 *   the valid disclosure and refuse the invalid one with the row's check; POST /credentials/derive
 *   (a holder) refuses to disclose from an invalid base credential.
 * - credentialStatus rows: the valid BitstringStatusListEntry is accepted by the rules and checked
 *   against its list (Digital Bazaar's createList/createCredential, signed by their bbs-2023 suite):
 *   see Row.status.
 *
 * Statements and section numbers are the Recommendation's (w3c/vc-data-model index.html); the rule
 * table of src/core/vcDataModel.ts quotes them, and every rule there has a row here. The server (the
 * binary) runs with TZ at UTC-12, so that a time read as local time instead of UTC (section 5.8)
 * shows; the command line runs in this process (runVcInProcess), in UTC as the binary sets it
 * whatever its environment says (test/cli/main.test.ts compares the two under that zone). Documents are deduplicated: each distinct one is signed, issued and verified once.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCredential, createList } from '@digitalbazaar/vc-bitstring-status-list';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_MODEL_RULES } from '../../src/core/vcDataModel.js';
import { deriveBbs2023Key } from '../../src/sd/suites/bbs2023/bbs2023Suite.js';
import { ROOT, runVcInProcess, startVcServe, tempDir, type ServedUrls, type VcRun, type VcServer } from '../helpers.js';
import { digitalBazaarIssuer, type DigitalBazaarIssuer } from '../sd/suites/bbs2023/digitalBazaarIssuer.js';

type Json = Record<string, unknown>;
type Role = 'issuer' | 'verifier';

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const V2 = 'https://www.w3.org/ns/credentials/v2';
const EXAMPLES = 'https://www.w3.org/ns/credentials/examples/v2';
const UNDEFINED_TERMS = 'https://www.w3.org/ns/credentials/undefined-terms/v2';
/** The machine's zone for the server and the command line: 12 hours behind UTC. */
// One BBS+ worker thread (not one per core): the served routes still run their BBS+ calls in a worker.
const ENV = { IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_TRUSTED_ISSUERS: '*', TZ: 'Etc/GMT+12', VC_WORKERS: '1' };

/** The terms the documents use besides the base context's, in an inline context (section 4.3). */
const INLINE = {
  ExampleAlumniCredential: 'https://example.org/vocab#ExampleAlumniCredential',
  alumniOf: 'https://schema.org/alumniOf',
  VerifiableCredentialRefreshService2021: 'https://w3id.org/vc-refresh-service#VerifiableCredentialRefreshService2021',
  TrustFrameworkPolicy: 'https://example.org/vocab#TrustFrameworkPolicy',
  DocumentVerification: 'https://example.org/vocab#DocumentVerification',
  SvgRenderingTemplate: 'https://example.org/vocab#SvgRenderingTemplate',
};

/** The base context as the W3C publishes it, for relatedResource digests. */
const BASE_CONTEXT = readFileSync(path.join(ROOT, 'fixtures', 'contexts', 'credentials-v2.json'));
const sri = (bytes: Buffer | string): string => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
const multibase = (bytes: Buffer | string): string => `u${Buffer.concat([Buffer.from([0x12, 0x20]), createHash('sha256').update(bytes).digest()]).toString('base64url')}`;

/** An XML Schema dateTime without a time zone offset, `hours` from now. */
function withoutOffset(hours: number): string {
  return new Date(Date.now() + hours * 3_600_000).toISOString().slice(0, 19);
}
const SIX_HOURS_AGO = withoutOffset(-6);

/**
 * The valid credential the rows start from: one document using every property a row is about,
 * each in a valid form (an invalid document differs from it in the row's property only), so that
 * the channels sign and verify few distinct documents.
 */
function base(issuer: string): Json {
  return {
    '@context': [V2, INLINE],
    id: 'urn:uuid:0c07c1ce-57cb-41af-bef2-1b932b986873',
    type: ['VerifiableCredential', 'https://example.org/vocab#ExampleAlumniCredential'],
    issuer: { id: issuer, name: { '@value': 'Université Exemple', '@language': 'fr' } },
    name: { '@value': 'Alumni credential', '@language': 'en', '@direction': 'ltr' },
    description: [{ '@value': 'تخرجت من الجامعة', '@language': 'ar', '@direction': 'rtl' }],
    validFrom: '2024-01-01T00:00:00Z',
    validUntil: '2099-01-01T00:00:00+01:00',
    credentialSubject: [{ id: 'did:example:alice', alumniOf: 'Example University' }],
    credentialSchema: [{ id: 'https://university.example/schemas/alumni.json', type: 'JsonSchema' }],
    relatedResource: [
      { id: V2, digestSRI: sri(BASE_CONTEXT), digestMultibase: multibase(BASE_CONTEXT) },
      { id: 'https://university.example/logo.png', digestSRI: sri('a logo') },
    ],
    refreshService: { id: 'https://university.example/refresh/3732', type: 'VerifiableCredentialRefreshService2021' },
    termsOfUse: { id: 'https://university.example/policies/1', type: 'TrustFrameworkPolicy' },
    evidence: [{ id: 'https://university.example/evidence/f2aeec97', type: 'DocumentVerification' }],
    renderMethod: { id: 'https://university.example/templates/alumni.svg', type: 'SvgRenderingTemplate' },
  };
}

const STATUS = { id: 'https://university.example/status/1#5', type: 'BitstringStatusListEntry', statusPurpose: 'revocation', statusListIndex: '5', statusListCredential: 'https://university.example/status/1' };

interface Row {
  section: string;
  statement: string;
  /** The check that fails for the invalid document: `data-model:<rule>`, or another check of vc's. */
  check: string;
  roles: readonly Role[];
  /** Changes to the base credential that make the row's valid document (none: the base itself). */
  valid?: (c: Json) => void;
  invalid: (c: Json) => void;
  /** Applied to the disclosure the holder presents rather than to the credential (the proof removed). */
  presented?: boolean;
  /** The reason expected where no check id is given (the issuer's message, the VC-API's errors[0].message). */
  reason?: RegExp;
  /**
   * credentialStatus (a BitstringStatusListEntry): the data model's rules accept the valid entry.
   * The issuer assigns entries itself: the valid document given with its entry is refused by that
   * (not by a data-model check), and issued when it asks for one instead (--status revocation,
   * options.credentialStatus). The verifier checks the entry against its list: `vc verifier verify
   * --status-list` with Digital Bazaar's list accepts it, and refuses it once its bit is set; POST
   * /credentials/verify, which takes no list, has none at hand and says so (a StatusError, no
   * data-model check). A holder derives from it (a status is the verifier's to check).
   */
  status?: boolean;
}

/** A row of a rule of src/core/vcDataModel.ts: its section and statement from the rule table. */
function ruleRow(id: string, row: Omit<Row, 'section' | 'statement' | 'check' | 'roles'> & { roles?: readonly Role[] }): Row {
  const rule = DATA_MODEL_RULES.find((entry) => entry.id === id);
  if (rule === undefined) throw new Error(`no rule ${id}`);
  return { section: rule.section, statement: rule.statement, check: `data-model:${id}`, roles: row.roles ?? rule.roles, ...row };
}

const subjects = (c: Json): Json[] => c.credentialSubject as Json[];
const related = (c: Json): Json[] => c.relatedResource as Json[];
/** A status entry, in room made by leaving out the related resources (a base credential has at most 64 members, see sdCost.ts). */
const withStatus =
  (status: Json) =>
  (c: Json): void => {
    delete c.relatedResource;
    c.credentialStatus = status;
  };
const withUndefinedTerm = (c: Json): void => {
  (c['@context'] as unknown[]).push(UNDEFINED_TERMS);
  subjects(c)[0]!.nickname = 'Ally';
};

const ROWS: Row[] = [
  ruleRow('context-present', { invalid: (c) => delete c['@context'] }),
  ruleRow('context-first', { invalid: (c) => (c['@context'] = [INLINE, V2]) }),
  ruleRow('context-items', { invalid: (c) => (c['@context'] as unknown[]).push(42) }),
  ruleRow('context-known', { valid: (c) => (c['@context'] as unknown[]).push(EXAMPLES), invalid: (c) => (c['@context'] as unknown[]).push('https://contexts.example/alumni/v1') }),
  ruleRow('jsonld-expansion', { invalid: (c) => (c['@context'] as unknown[]).push({ name: 'https://evil.example/name' }) }),
  {
    section: '5.2.1',
    statement: 'If a conforming document does not use JSON-LD Contexts that define all terms used, it MUST include the https://www.w3.org/ns/credentials/undefined-terms/v2 as the last value in the @context property.',
    check: 'terms',
    roles: ['issuer', 'verifier'],
    valid: withUndefinedTerm,
    invalid: (c) => (subjects(c)[0]!.nickname = 'Ally'),
    reason: /field "nickname" is not defined/,
  },
  ruleRow('undefined-terms-last', {
    valid: withUndefinedTerm,
    invalid: (c) => {
      withUndefinedTerm(c);
      c['@context'] = [V2, UNDEFINED_TERMS, INLINE];
    },
  }),
  ruleRow('id-url', { invalid: (c) => (c.id = ['urn:uuid:0c07c1ce-57cb-41af-bef2-1b932b986873', 'urn:uuid:1d18d2df-68dc-52bf-cf03-2c043ca97984']) }),
  ruleRow('type-present', { invalid: (c) => delete c.type }),
  ruleRow('type-values', { invalid: (c) => (c.type = ['VerifiableCredential', 42]) }),
  ruleRow('type-vc', { invalid: (c) => (c.type = ['ExampleAlumniCredential']) }),
  ruleRow('name', { invalid: (c) => (c.name = 42) }),
  ruleRow('description', { invalid: (c) => (c.description = true) }),
  ruleRow('language-value', { invalid: (c) => (c.name = { '@language': 'en' }) }),
  ruleRow('language-value-keys', { invalid: (c) => (c.name = { '@value': 'Alumni', '@language': 'en', '@index': 'short' }) }),
  // vc's issuer names itself when a credential names no issuer (POST /credentials/issue), so the
  // credential it signs has one: this rule is the verifier's.
  ruleRow('issuer-present', { roles: ['verifier'], invalid: (c) => delete c.issuer }),
  ruleRow('issuer-url', { invalid: (c) => delete (c.issuer as Json).id }),
  ruleRow('credential-subject', { invalid: (c) => delete c.credentialSubject }),
  ruleRow('credential-subject-claims', { invalid: (c) => subjects(c).push({}) }),
  ruleRow('valid-from', { invalid: (c) => (c.validFrom = '2024-01-01') }),
  ruleRow('valid-until', { invalid: (c) => (c.validUntil = 'tomorrow') }),
  ruleRow('valid-from', { roles: ['issuer'], invalid: (c) => (c.validFrom = '2024-01-01T00:00:00') }),
  {
    section: '5.8',
    statement: 'Time values that are incorrectly serialized without an offset MUST be interpreted as UTC.',
    check: 'validity',
    roles: ['verifier'],
    // Read as local time (UTC-12) the first would lie in the future and the second not have passed.
    valid: (c) => (c.validFrom = SIX_HOURS_AGO),
    invalid: (c) => (c.validUntil = SIX_HOURS_AGO),
    reason: /validUntil \S+ has passed/,
  },
  ruleRow('validity-order', {
    invalid: (c) => {
      c.validFrom = '2030-01-01T00:00:00Z';
      c.validUntil = '2029-01-01T00:00:00Z';
    },
  }),
  ruleRow('status-type', { status: true, valid: withStatus(STATUS), invalid: withStatus({ id: STATUS.id }) }),
  {
    ...ruleRow('id-url', { status: true, valid: withStatus(STATUS), invalid: withStatus({ ...STATUS, id: 'status-5' }) }),
    section: '4.10',
    statement: 'credentialStatus id: if present, the normative guidance in Section 4.4 Identifiers MUST be followed.',
  },
  ruleRow('schema-type', { invalid: (c) => delete (c.credentialSchema as Json[])[0]!.type }),
  ruleRow('schema-id', { invalid: (c) => delete (c.credentialSchema as Json[])[0]!.id }),
  ruleRow('related-resource-objects', { invalid: (c) => (c.relatedResource = [V2]) }),
  ruleRow('related-resource-id', { invalid: (c) => delete related(c)[1]!.id }),
  ruleRow('related-resource-unique', { invalid: (c) => (related(c)[1]!.id = V2) }),
  ruleRow('related-resource-digest', { invalid: (c) => delete related(c)[1]!.digestSRI }),
  ruleRow('related-resource-digest-match', { invalid: (c) => (related(c)[0]!.digestSRI = sri('another document')) }),
  ruleRow('related-resource-digest-match', { invalid: (c) => (related(c)[0]!.digestMultibase = multibase('another document')) }),
  ruleRow('refresh-service-type', { invalid: (c) => delete (c.refreshService as Json).type }),
  ruleRow('terms-of-use-type', { invalid: (c) => delete (c.termsOfUse as Json).type }),
  ruleRow('evidence-objects', { invalid: (c) => (c.evidence = 'https://university.example/evidence/f2aeec97') }),
  ruleRow('evidence-type', { invalid: (c) => delete (c.evidence as Json[])[0]!.type }),
  {
    ...ruleRow('id-url', { invalid: (c) => ((c.evidence as Json[])[0]!.id = 'evidence f2aeec97') }),
    section: '5.6',
    statement: 'evidence id: if present, the normative guidance in Section 4.4 Identifiers MUST be followed.',
  },
  ruleRow('reserved-type', { invalid: (c) => delete (c.renderMethod as Json).type }),
  ruleRow('compacted-form', { invalid: (c) => (subjects(c)[0] = { '@id': 'did:example:alice', alumniOf: 'Example University' }) }),
  {
    section: '1.3',
    statement: 'A conforming document MUST be secured by at least one securing mechanism ... A conforming verifier implementation ... MUST perform verification on a conforming document.',
    check: 'proof-type',
    roles: ['verifier'],
    invalid: (c) => delete c.proof,
    presented: true,
    reason: /no proof/,
  },
];

const tmp = tempDir('vc-dm-table-');
let server: VcServer | undefined;
let urls: ServedUrls;
let db: DigitalBazaarIssuer;
let vcDid: string;
const cliHome = path.join(tmp.dir, 'cli');
let files = 0;

/** The status lists STATUS names (signed by Digital Bazaar's issuer), as files for --status-list: its bit clear, and set. */
const statusListFiles = { clear: '', revoked: '' };

/** The status list of STATUS by Digital Bazaar's libraries: their createList and createCredential, their bbs-2023 suite (a base proof) with their issuer's key. */
async function theirStatusList(revoked: boolean): Promise<Json> {
  const list = await createList({ length: 131_072 });
  if (revoked) list.setStatus(Number(STATUS.statusListIndex), true);
  const unsigned = { ...(await createCredential({ id: STATUS.statusListCredential, list, statusPurpose: STATUS.statusPurpose })), issuer: db.did, validFrom: '2025-01-01T00:00:00Z' };
  return (await db.sign(unsigned)).signed;
}

/** A status row's valid document without its entry: the issuer is asked for one instead. */
function statusAsked(document: Json): Json {
  const { credentialStatus: _status, ...rest } = document;
  return rest;
}

/** Results per channel, by the document's JSON. */
const results = new Map<string, Map<string, unknown>>();
const forChannel = (channel: string): Map<string, unknown> => results.get(channel) ?? results.set(channel, new Map()).get(channel)!;

/** Runs `tasks` at most `limit` at a time. */
async function pool<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const out: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next++;
      out[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return out;
}

async function post(url: string, body: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Json };
}

function fileOf(document: Json): string {
  const file = path.join(tmp.dir, `doc-${++files}.json`);
  writeFileSync(file, JSON.stringify(document));
  return file;
}

/** The command line in this process (runVcInProcess: in UTC while it runs, as the binary, whatever ENV's TZ says). */
const cli = (args: string[]): Promise<VcRun> => runVcInProcess(['--json', ...args], { home: cliHome, env: ENV });

/** The documents of a row: what the issuer is given, and what the verifier (and a holder) receive. */
interface RowDocuments {
  issue: { valid: Json; invalid: Json };
  /** The Digital Bazaar issuer's base credentials and their disclosures. */
  signed: { valid: Json; invalid: Json | undefined };
  presented: { valid: Json; invalid: Json };
  /** False when Digital Bazaar's libraries could not sign the invalid document (not JSON-LD they process): its disclosure is the valid one's, changed. */
  invalidSigned: boolean;
}
const documents = new Map<Row, RowDocuments>();

/** Every top-level member as a mandatory pointer: the disclosure shows the whole credential. */
const everything = (document: Json): string[] => Object.keys(document).filter((key) => key !== '@context').map((key) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);

const signedCache = new Map<string, Promise<{ signed: Json; derived: Json } | undefined>>();
function signAndDisclose(document: Json): Promise<{ signed: Json; derived: Json } | undefined> {
  const key = JSON.stringify(document);
  let found = signedCache.get(key);
  if (found === undefined) {
    found = (async () => {
      try {
        const { signed } = await db.sign(document, everything(document));
        return { signed, derived: await db.derive(signed, []) };
      } catch {
        return undefined;
      }
    })();
    signedCache.set(key, found);
  }
  return found;
}

beforeAll(async () => {
  vcDid = (await deriveBbs2023Key(PHRASE)).did;
  db = await digitalBazaarIssuer();
  server = await startVcServe(path.join(tmp.dir, 'server'), ['--role', 'all'], { env: ENV });
  urls = server.urls as ServedUrls;

  for (const row of ROWS) {
    const make = (issuer: string, change?: (c: Json) => void): Json => {
      const document = base(issuer);
      change?.(document);
      return document;
    };
    const validDb = make(db.did, row.valid);
    const valid = await signAndDisclose(validDb);
    if (valid === undefined) throw new Error(`Digital Bazaar could not sign the valid document of ${row.check} (${row.section})`);
    let invalidSigned = true;
    let presentedInvalid: Json;
    let signedInvalid: Json | undefined;
    if (row.presented === true) {
      presentedInvalid = structuredClone(valid.derived);
      row.invalid(presentedInvalid);
      signedInvalid = undefined;
    } else {
      const invalid = await signAndDisclose(make(db.did, row.invalid));
      if (invalid === undefined) {
        // Not JSON-LD the libraries sign: the base credential's disclosure, changed (its proof no
        // longer holds, and the verifier must name the row's check before it gets to the proof).
        const unchanged = (await signAndDisclose(make(db.did)))!;
        invalidSigned = false;
        presentedInvalid = structuredClone(unchanged.derived);
        row.invalid(presentedInvalid);
        signedInvalid = structuredClone(unchanged.signed);
        row.invalid(signedInvalid);
      } else {
        presentedInvalid = invalid.derived;
        signedInvalid = invalid.signed;
      }
    }
    documents.set(row, {
      issue: { valid: make(vcDid, row.valid), invalid: make(vcDid, row.invalid) },
      signed: { valid: valid.signed, invalid: signedInvalid },
      presented: { valid: valid.derived, invalid: presentedInvalid },
      invalidSigned,
    });
  }

  // Every distinct document once per channel: the routes side by side, the command line two at a time.
  const distinct = (pick: (d: RowDocuments) => Array<Json | undefined>): Json[] => [...new Map([...documents.values()].flatMap(pick).filter((d): d is Json => d !== undefined).map((d) => [JSON.stringify(d), d])).values()];
  const issuerDocs = distinct((d) => [d.issue.valid, d.issue.invalid]);
  const presentedDocs = distinct((d) => [d.presented.valid, d.presented.invalid]);
  const signedDocs = distinct((d) => [d.signed.valid, d.signed.invalid]);
  const statusRows = ROWS.filter((row) => row.status === true).map((row) => documents.get(row)!);
  const statusAskedDocs = [...new Map(statusRows.map((d) => statusAsked(d.issue.valid)).map((d) => [JSON.stringify(d), d])).values()];
  const statusPresentedDocs = [...new Map(statusRows.map((d) => [JSON.stringify(d.presented.valid), d.presented.valid])).values()];
  statusListFiles.clear = fileOf(await theirStatusList(false));
  statusListFiles.revoked = fileOf(await theirStatusList(true));
  const http = [
    ...issuerDocs.map((document) => async () => forChannel('http-issue').set(JSON.stringify(document), await post(`${urls.issuer}/credentials/issue`, { credential: document }))),
    ...presentedDocs.map((document) => async () => forChannel('http-verify').set(JSON.stringify(document), await post(`${urls.verifier}/credentials/verify`, { verifiableCredential: document }))),
    ...signedDocs.map((document) => async () => forChannel('http-derive').set(JSON.stringify(document), await post(`${urls.holder}/credentials/derive`, { verifiableCredential: document, options: { selectivePointers: [] } }))),
    ...statusAskedDocs.map(
      (document) => async () =>
        forChannel('http-issue-status').set(JSON.stringify(document), await post(`${urls.issuer}/credentials/issue`, { credential: document, options: { credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' } } })),
    ),
  ];
  const commands = [
    ...issuerDocs.map((document) => async () => forChannel('cli-issue').set(JSON.stringify(document), await cli(['issuer', 'issue', '--format', 'bbs-2023', '--credential', fileOf(document)]))),
    // The clear list is given to every verification: it names only STATUS's list, which the others do not use.
    ...presentedDocs.map((document) => async () => forChannel('cli-verify').set(JSON.stringify(document), await cli(['verifier', 'verify', '--credential', fileOf(document), '--status-list', statusListFiles.clear]))),
    ...statusAskedDocs.map((document) => async () => forChannel('cli-issue-status').set(JSON.stringify(document), await cli(['issuer', 'issue', '--format', 'bbs-2023', '--credential', fileOf(document), '--status', 'revocation']))),
    ...statusPresentedDocs.map(
      (document) => async () => forChannel('cli-verify-revoked').set(JSON.stringify(document), await cli(['verifier', 'verify', '--credential', fileOf(document), '--status-list', statusListFiles.revoked])),
    ),
  ];
  await Promise.all([pool(http, 4), pool(commands, 2)]);
}, 900_000);

afterAll(async () => {
  await server?.stop();
  tmp.cleanup();
});

const result = <T>(channel: string, document: Json): T => {
  const found = results.get(channel)?.get(JSON.stringify(document));
  if (found === undefined) throw new Error(`no ${channel} result`);
  return found as T;
};

/** The first failed check of a `vc verifier verify` run. */
function failedCheck(run: VcRun): { id: string; reason?: string } | undefined {
  return (JSON.parse(run.stdout) as { checks: Array<{ id: string; valid: boolean; reason?: string }> }).checks.find((check) => !check.valid);
}

const isDataModel = (row: Row): boolean => row.check.startsWith('data-model:');
const label = (row: Row): string => `§${row.section} ${row.check}: ${row.statement.slice(0, 90)}`;

describe('every rule of src/core/vcDataModel.ts has a row', () => {
  it('and every data-model row names a rule of its section (or quotes the section it applies the rule in)', () => {
    const checked = new Set(ROWS.map((row) => row.check));
    expect(DATA_MODEL_RULES.map((rule) => `data-model:${rule.id}`).filter((check) => !checked.has(check))).toEqual([]);
    for (const row of ROWS.filter(isDataModel)) {
      const rule = DATA_MODEL_RULES.find((entry) => `data-model:${entry.id}` === row.check)!;
      expect(rule, row.check).toBeDefined();
      expect(row.section === rule.section || row.statement !== rule.statement, row.check).toBe(true);
    }
  });
});

describe.each(ROWS.filter((row) => row.roles.includes('issuer')).map((row) => [label(row), row] as const))('issuer, %s', (_label, row) => {
  const docs = (): RowDocuments => documents.get(row)!;

  it('vc issuer issue --credential: the valid document is signed, the invalid one refused (exit 2) naming the check', () => {
    const valid = result<VcRun>('cli-issue', docs().issue.valid);
    if (row.status === true) {
      // The rules accept the entry; the issuer refuses to sign one it did not assign.
      expect(valid.status, valid.stderr).toBe(2);
      const refused = (JSON.parse(valid.stderr) as { error: { code: string; message: string } }).error;
      expect(refused.code).not.toBe('data_model_violation');
      expect(refused.message).toMatch(/^--credential \S+: field credentialStatus: the issuer assigns the status list entry itself/);
      const asked = result<VcRun>('cli-issue-status', statusAsked(docs().issue.valid));
      expect(asked.status, asked.stderr).toBe(0);
      const status = asked.json<Json>().credentialStatus as Json;
      expect(status).toMatchObject({ type: 'BitstringStatusListEntry', statusPurpose: 'revocation' });
      expect(String(status.id)).toMatch(/^https?:\/\/\S+#\d+$/);
    } else {
      expect(valid.status, valid.stderr).toBe(0);
      expect((valid.json<Json>().proof as Json).cryptosuite).toBe('bbs-2023');
    }
    const invalid = result<VcRun>('cli-issue', docs().issue.invalid);
    expect(invalid.status, invalid.stdout).toBe(2);
    const error = (JSON.parse(invalid.stderr) as { error: { code: string; message: string } }).error;
    if (isDataModel(row)) {
      expect(error).toMatchObject({ code: 'data_model_violation' });
      expect(error.message).toContain(`(check ${row.check}, VC Data Model 2.0 §`);
      expect(error.message).toMatch(/^--credential \S+/);
    } else {
      expect(error.message).toMatch(row.reason!);
    }
  });

  it('POST /credentials/issue: 201 for the valid document, 422 naming the check for the invalid one', () => {
    const valid = result<{ status: number; body: Json }>('http-issue', docs().issue.valid);
    if (row.status === true) {
      expect(valid.status).toBe(422);
      expect((valid.body.error as Json).code).not.toBe('data_model_violation');
      expect(String((valid.body.error as Json).message)).toMatch(/the issuer assigns the status list entry itself/);
      const asked = result<{ status: number; body: Json }>('http-issue-status', statusAsked(docs().issue.valid));
      expect(asked.status, JSON.stringify(asked.body)).toBe(201);
      expect((asked.body.verifiableCredential as Json).credentialStatus).toMatchObject({ type: 'BitstringStatusListEntry', statusPurpose: 'revocation' });
    } else {
      expect(valid.status, JSON.stringify(valid.body)).toBe(201);
    }
    const invalid = result<{ status: number; body: { error: { code: string; message: string } } }>('http-issue', docs().issue.invalid);
    expect(invalid.status, JSON.stringify(invalid.body)).toBe(422);
    if (isDataModel(row)) {
      expect(invalid.body.error.code).toBe('data_model_violation');
      expect(invalid.body.error.message).toContain(`check ${row.check}`);
    } else {
      expect(invalid.body.error.message).toMatch(row.reason!);
    }
  });
});

describe.each(ROWS.filter((row) => row.roles.includes('verifier')).map((row) => [label(row), row] as const))('verifier, %s', (_label, row) => {
  const docs = (): RowDocuments => documents.get(row)!;

  it('signed with Digital Bazaar’s libraries: the proof of the invalid document holds (so the refusal is the rule’s)', async () => {
    if (!docs().invalidSigned || row.presented === true) return;
    expect(await db.proofHolds(docs().presented.invalid)).toBe(true);
  });

  it('vc verifier verify: the valid disclosure verifies, the invalid one fails the row’s check (exit 1)', () => {
    const valid = result<VcRun>('cli-verify', docs().presented.valid);
    expect(valid.status, `${valid.stdout}${valid.stderr}`).toBe(0);
    if (row.status === true) {
      // Checked against Digital Bazaar's list: accepted while its bit is clear, refused once it is set.
      const checks = (JSON.parse(valid.stdout) as { checks: Array<{ id: string; valid: boolean }> }).checks;
      expect(checks).toContainEqual({ id: 'data-model', valid: true });
      expect(checks).toContainEqual({ id: 'status', valid: true });
      const revoked = result<VcRun>('cli-verify-revoked', docs().presented.valid);
      expect(revoked.status, revoked.stderr).toBe(1);
      expect(failedCheck(revoked)).toEqual({ id: 'status', valid: false, reason: `revoked: index ${STATUS.statusListIndex} of status list ${STATUS.statusListCredential} is set (revocation)` });
    }
    const invalid = result<VcRun>('cli-verify', docs().presented.invalid);
    expect(invalid.status, invalid.stderr).toBe(1);
    const failed = failedCheck(invalid);
    expect(failed?.id, invalid.stdout).toBe(row.check);
    if (!isDataModel(row)) expect(failed?.reason).toMatch(row.reason!);
  });

  it('POST /credentials/verify: 200 for the valid disclosure, 422 naming the check for the invalid one', () => {
    const valid = result<{ status: number; body: Json }>('http-verify', docs().presented.valid);
    if (row.status === true) {
      // The rules and the proof hold; this route takes no status list, and the list is not at hand.
      expect(valid.status, JSON.stringify(valid.body)).toBe(422);
      expect(valid.body.checks).toEqual(['data-model', 'proof', 'status']);
      expect(valid.body.errors).toEqual([{ name: 'StatusError', message: expect.stringMatching(/^status: status list https:\/\/university\.example\/status\/1: not at hand/) as unknown }]);
    } else {
      expect(valid.status, JSON.stringify(valid.body)).toBe(200);
    }
    const invalid = result<{ status: number; body: { errors: Array<{ message: string; check?: string }> } }>('http-verify', docs().presented.invalid);
    expect(invalid.status).toBe(422);
    if (isDataModel(row)) expect(invalid.body.errors[0]?.check, JSON.stringify(invalid.body)).toBe(row.check);
    else expect(invalid.body.errors[0]?.message).toMatch(row.reason!);
  });

  it('POST /credentials/derive: a holder discloses from the valid credential, not from the invalid one', () => {
    const valid = result<{ status: number; body: Json }>('http-derive', docs().signed.valid);
    expect(valid.status, JSON.stringify(valid.body)).toBe(201);
    if (docs().signed.invalid === undefined) return;
    const invalid = result<{ status: number; body: { error: { code: string; message: string } } }>('http-derive', docs().signed.invalid!);
    expect(invalid.status).toBe(422);
    if (isDataModel(row)) expect(invalid.body.error.message).toContain(`check ${row.check}`);
  });
});
