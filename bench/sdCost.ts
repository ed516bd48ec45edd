/**
 * Cost model of selective disclosure: how the time of sign, derive and verify grows with the size
 * of the credential, for each suite, in process on one thread (what one request costs a worker
 * of `vc serve`). The limits of src/core/sd/sdCost.ts come from these figures.
 *
 * - bbs-2023 (Digital Bazaar's libraries, pure JavaScript BBS over @noble/curves): VC 2.0
 *   credentials of about n members, for several n: a subject whose `name` lists strings ("flat"),
 *   or whose `driversLicense` lists licences of three fields ("nested": blank nodes, which
 *   canonicalisation labels); a quarter of the list disclosed. Steps: sign, derive, verify (the derived proof), verifyBase (the
 *   issuer's base proof: derive everything, then verify) and expand (the JSON-LD safe-mode check
 *   of the terms).
 * - BbsBlsSignature2020 (MATTR's WebAssembly): its contexts define a fixed set of terms (no
 *   @vocab), so a credential's statements cannot grow with its members; what a caller can grow is
 *   the number of members a verifier reads, e.g. a `type` list of n entries. Steps: verify (the
 *   derived proof, which then fails: the list was not signed) and expand, for several n.
 *
 * Every figure is the median of `runs` runs (the largest sizes: fewer), the sizes interleaved
 * round by round so that all see the same machine load. The baseline is the smallest size of the
 * same suite in the same run: `ratios` are each size's time over the baseline's, `perMember`
 * the slope (ms per member) between the smallest and the largest size, and `statements` the
 * N-Quads statements of each document (counted once with jsonld, outside the timings).
 * Run: node dist/bench/sdCost.js [runs]
 */
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/context.js';
import { createStaticDocumentLoader, type DocumentLoader } from '../src/sd/documentLoader.js';
import { findUndefinedJsonLdTerms } from '../src/sd/jsonldCheck.js';
import { bbsLibraries } from '../src/sd/library.js';
import { verifyDerivedBbsProof } from '../src/sd/suites/bbs2020/bbs2020Suite.js';
import { createBbs2023DocumentLoader, CREDENTIALS_V2_URL, VDL_V1_URL } from '../src/sd/suites/bbs2023/bbs2023Loader.js';
import { deriveBbs2023, deriveBbs2023Key, signBbs2023, verifyBbs2023 } from '../src/sd/suites/bbs2023/bbs2023Suite.js';
import type { JsonLdDocument } from '../src/sd/proofOutcome.js';
import { deriveSelectiveDisclosure, issueSelectiveDisclosureCredential } from '../src/core/sd/index.js';
import { keepHeldCredential } from '../src/core/holder/holderStore.js';
import { countMembers } from '../src/core/sd/sdCost.js';
import { median, round, runIfMain } from './stats.js';

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
/** Subject members of the bbs-2023 documents measured (the whole document has about 8 more). */
export const BBS_2023_SIZES = [16, 64, 128, 256] as const;
/** Entries of the `type` list of the BbsBlsSignature2020 documents measured. */
export const BBS_2020_SIZES = [2, 64, 128, 192] as const;

type Shape = 'flat' | 'nested';
type Step2023 = 'sign' | 'derive' | 'verify' | 'verifyBase' | 'expand';
type Step2020 = 'verify' | 'expand';

export interface SizeFigures<S extends string> {
  /** Members as vc counts them (object keys and list items, at any depth; the proof aside). */
  members: number;
  /** N-Quads statements of the document (its proof aside). */
  statements: number;
  /** Disclosed statements of the derived proof (bbs-2023). */
  disclosedStatements?: number;
  /** Median ms of each step. */
  ms: Record<S, number>;
  /** ms / the baseline's ms, per step. */
  ratios: Record<S, number>;
}

export interface SdCostReport {
  benchmark: 'sdCost';
  machine: { cpus: number; cpuModel: string | undefined; node: string };
  runs: number;
  bbs2023: Record<Shape, Array<SizeFigures<Step2023>>> & {
    /** Slope of each step between the smallest and largest flat and nested sizes: ms per member. */
    perMember: Record<Shape, Record<Step2023, number>>;
    /** The same slope per statement. */
    perStatement: Record<Shape, Record<Step2023, number>>;
  };
  bbs2020: {
    sizes: Array<SizeFigures<Step2020>>;
    perMember: Record<Step2020, number>;
    /**
     * The raw WebAssembly calls with n signed messages, 10 revealed: what a derived proof's hidden
     * messages cost its verifier (vc's proof parser accepts at most 1,024 signed statements).
     */
    rawByMessages: Array<{ messages: number; deriveMs: number; verifyMs: number }>;
  };
}

/** Raw blsCreateProof / blsVerifyProof with n messages (10 revealed), median of `runs`. */
async function rawBbs2020ByMessages(runs: number): Promise<SdCostReport['bbs2020']['rawByMessages']> {
  const { raw: bbs } = await bbsLibraries();
  const keyPair = await bbs.generateBls12381G2KeyPair();
  const out: SdCostReport['bbs2020']['rawByMessages'] = [];
  for (const n of [18, 256, 1024]) {
    const messages = Array.from({ length: n }, (_, index) => new Uint8Array(Buffer.from(`message ${index}`)));
    const signature = await bbs.blsSign({ keyPair, messages });
    const revealed = Array.from({ length: 10 }, (_, index) => index);
    const nonce = new Uint8Array(32).fill(3);
    const derive: number[] = [];
    const verify: number[] = [];
    for (let run = 0; run < Math.max(1, Math.min(runs, 3)); run++) {
      let proof: Uint8Array | undefined;
      derive.push(await time(async () => (proof = await bbs.blsCreateProof({ signature, publicKey: keyPair.publicKey, messages, nonce, revealed }))));
      verify.push(await time(async () => {
        if (!(await bbs.blsVerifyProof({ proof: proof!, publicKey: keyPair.publicKey, messages: revealed.map((index) => messages[index]!), nonce })).verified) throw new Error('bench: raw proof failed');
      }));
    }
    out.push({ messages: n, deriveMs: round(median(derive), 1), verifyMs: round(median(verify), 1) });
  }
  return out;
}

/**
 * A VC 2.0 credential of `issuer` of about `members` members. Its contexts define no catch-all
 * term (@vocab), so a document grows by lists: "flat" is a subject whose `name` lists distinct
 * strings (one statement each), "nested" a licensed driver whose `driversLicense` lists licences of
 * three fields (each a blank node, which canonicalisation labels: 5 members, 5 statements).
 */
export function bbs2023Credential(issuer: string, members: number, shape: Shape): JsonLdDocument {
  const envelope = 10;
  const count = Math.max(1, members - envelope);
  const subject: Record<string, unknown> =
    shape === 'flat'
      ? { id: 'did:example:subject', name: Array.from({ length: count }, (_, index) => `value ${index}`) }
      : {
          id: 'did:example:subject',
          type: 'LicensedDriver',
          driversLicense: Array.from({ length: Math.max(2, Math.floor(count / 5)) }, (_, index) => ({ type: 'Iso18013DriversLicense', document_number: `D${index}`, family_name: `F${index}`, given_name: `G${index}` })),
        };
  return { '@context': [CREDENTIALS_V2_URL, VDL_V1_URL], type: ['VerifiableCredential'], issuer, validFrom: '2024-01-01T00:00:00Z', credentialSubject: subject };
}

async function countStatements(document: JsonLdDocument, loader: DocumentLoader): Promise<number> {
  const { default: jsonld } = await import('jsonld');
  const { proof: _proof, ...rest } = document;
  const nquads = (await jsonld.toRDF(rest as Parameters<typeof jsonld.toRDF>[0], { format: 'application/n-quads', documentLoader: loader } as Parameters<typeof jsonld.toRDF>[1])) as unknown as string;
  return nquads.split('\n').filter((line) => line.trim() !== '').length;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function slope(points: Array<{ x: number; y: number }>): number {
  const first = points[0]!;
  const last = points[points.length - 1]!;
  return round((last.y - first.y) / (last.x - first.x), 3);
}

/** Runs the measurements and returns the JSON report. */
export async function runSdCostBench(options: { runs?: number; progress?: (line: string) => void } = {}): Promise<SdCostReport> {
  const runs = options.runs ?? 5;
  const progress = options.progress ?? ((line: string) => process.stderr.write(`[sdCost] ${line}\n`));
  const loader2023 = createBbs2023DocumentLoader();
  const key = await deriveBbs2023Key(PHRASE);
  const header = new Uint8Array(32).fill(7);
  const now = new Date();

  // bbs-2023: prepare each size once (signed, derived), then time every step round by round.
  interface Case2023 {
    shape: Shape;
    members: number;
    statements: number;
    disclosedStatements: number;
    steps: Record<Step2023, () => Promise<unknown>>;
    samples: Record<Step2023, number[]>;
  }
  const cases2023: Case2023[] = [];
  for (const shape of ['flat', 'nested'] as const) {
    for (const size of BBS_2023_SIZES) {
      const unsigned = bbs2023Credential(key.did, size, shape);
      const signed = await signBbs2023(unsigned, key, ['/issuer', '/validFrom'], loader2023, now);
      // A quarter of the list disclosed.
      const list = shape === 'flat' ? 'name' : 'driversLicense';
      const items = ((unsigned.credentialSubject as Record<string, unknown>)[list] as unknown[]).length;
      const pointers = Array.from({ length: Math.max(1, Math.floor(items / 4)) }, (_, index) => `/credentialSubject/${list}/${index}`);
      const derived = await deriveBbs2023(signed, pointers, header, loader2023);
      const check = async (document: JsonLdDocument) => {
        const result = await verifyBbs2023(document, loader2023, now);
        if (!result.verified) throw new Error(`bench: bbs-2023 ${shape} ${size}: ${result.reason}`);
      };
      await check(derived);
      cases2023.push({
        shape,
        members: countMembers(unsigned).document,
        statements: await countStatements(unsigned, loader2023),
        disclosedStatements: await countStatements(derived, loader2023),
        steps: {
          sign: () => signBbs2023(unsigned, key, ['/issuer', '/validFrom'], loader2023, now),
          derive: () => deriveBbs2023(signed, pointers, header, loader2023),
          verify: () => check(derived),
          verifyBase: () => check(signed),
          expand: () => findUndefinedJsonLdTerms(derived, loader2023),
        },
        samples: { sign: [], derive: [], verify: [], verifyBase: [], expand: [] },
      });
    }
  }

  // BbsBlsSignature2020: vc's own derived passport credential, with a `type` list of n entries.
  const home = mkdtempSync(path.join(os.tmpdir(), 'vc-bench-sdcost-'));
  const ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE }, home) });
  const loader2020 = createStaticDocumentLoader();
  interface Case2020 {
    members: number;
    statements: number;
    steps: Record<Step2020, () => Promise<unknown>>;
    samples: Record<Step2020, number[]>;
  }
  const cases2020: Case2020[] = [];
  try {
    keepHeldCredential(ctx, await issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:bench' }), { kind: 'bbs2020', source: 'issued' });
    const disclosed = (await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['id', 'name', 'nationality'] })).vc as JsonLdDocument;
    for (const size of BBS_2020_SIZES) {
      const document: JsonLdDocument = { ...disclosed, type: ['VerifiableCredential', 'PassportCredential', ...Array.from({ length: size - 2 }, (_, index) => `ExtraType${index}`)] };
      cases2020.push({
        members: countMembers(document).document,
        statements: await countStatements(document, loader2020),
        steps: {
          verify: () => verifyDerivedBbsProof(document, loader2020),
          expand: () => findUndefinedJsonLdTerms(document, loader2020),
        },
        samples: { verify: [], expand: [] },
      });
    }

    for (let pass = -1; pass < runs; pass++) {
      progress(pass < 0 ? 'warm-up pass' : `pass ${pass + 1} of ${runs}`);
      for (const entry of cases2023) {
        // The largest sizes cost seconds a step: three runs of them are enough for a median.
        if (pass >= 3 && entry.members > 200) continue;
        for (const step of Object.keys(entry.steps) as Step2023[]) {
          const ms = await time(entry.steps[step]);
          if (pass >= 0) entry.samples[step].push(ms);
        }
      }
      for (const entry of cases2020) {
        for (const step of Object.keys(entry.steps) as Step2020[]) {
          const ms = await time(entry.steps[step]);
          if (pass >= 0) entry.samples[step].push(ms);
        }
      }
    }
  } finally {
    await ctx.close();
    rmSync(home, { recursive: true, force: true });
  }

  const figures = <S extends string>(entry: { members: number; statements: number; samples: Record<S, number[]> }, base: { samples: Record<S, number[]> }, disclosedStatements?: number): SizeFigures<S> => {
    const steps = Object.keys(entry.samples) as S[];
    const ms = Object.fromEntries(steps.map((step) => [step, round(median(entry.samples[step]), 1)])) as Record<S, number>;
    const ratios = Object.fromEntries(steps.map((step) => [step, round(median(entry.samples[step]) / median(base.samples[step]), 2)])) as Record<S, number>;
    return { members: entry.members, statements: entry.statements, ...(disclosedStatements === undefined ? {} : { disclosedStatements }), ms, ratios };
  };
  const of2023 = (shape: Shape) => {
    const list = cases2023.filter((entry) => entry.shape === shape);
    return list.map((entry) => figures(entry, list[0]!, entry.disclosedStatements));
  };
  const flat = of2023('flat');
  const nested = of2023('nested');
  const steps2023: Step2023[] = ['sign', 'derive', 'verify', 'verifyBase', 'expand'];
  const slopes = (list: Array<SizeFigures<Step2023>>, by: 'members' | 'statements') =>
    Object.fromEntries(steps2023.map((step) => [step, slope(list.map((entry) => ({ x: entry[by], y: entry.ms[step] })))])) as Record<Step2023, number>;
  const sizes2020 = cases2020.map((entry) => figures(entry, cases2020[0]!));
  return {
    benchmark: 'sdCost',
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
    runs,
    bbs2023: {
      flat,
      nested,
      perMember: { flat: slopes(flat, 'members'), nested: slopes(nested, 'members') },
      perStatement: { flat: slopes(flat, 'statements'), nested: slopes(nested, 'statements') },
    },
    bbs2020: {
      sizes: sizes2020,
      perMember: {
        verify: slope(sizes2020.map((entry) => ({ x: entry.members, y: entry.ms.verify }))),
        expand: slope(sizes2020.map((entry) => ({ x: entry.members, y: entry.ms.expand }))),
      },
      rawByMessages: await rawBbs2020ByMessages(runs),
    },
  };
}

runIfMain(import.meta.url, (runs) => runSdCostBench(runs === undefined ? {} : { runs }));
