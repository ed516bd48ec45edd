/**
 * What one selective-disclosure request may cost a worker, counted from the JSON before any
 * JSON-LD work (see bench/sdCost.ts for the measurements behind the limits).
 */

/** Members of a document as the shape checks count them: the root, every object key and list item at any depth; the top-level proof's apart. */
export interface MemberCount {
  /** The document's members, its proof aside (the root counts one). */
  document: number;
  /** The members of the top-level `proof` (the key itself included). */
  proof: number;
}

/**
 * Counts the members of `document` (see MemberCount), by the lengths of its objects and lists:
 * once the document's count passes `stopAbove`, counting stops and returns what it has (already
 * above), so a body of a million members costs no more than the limit.
 */
export function countMembers(document: Record<string, unknown>, stopAbove = Number.POSITIVE_INFINITY): MemberCount {
  const counts: MemberCount = { document: 1, proof: 0 };
  const stack: Array<{ value: unknown; inProof: boolean }> = [];
  const keys = Object.keys(document);
  const hasProof = Object.hasOwn(document, 'proof');
  counts.document += keys.length - (hasProof ? 1 : 0);
  counts.proof += hasProof ? 1 : 0;
  if (counts.document > stopAbove) return counts;
  for (const key of keys) stack.push({ value: document[key], inProof: key === 'proof' });
  while (stack.length > 0 && counts.document <= stopAbove) {
    const { value, inProof } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    // The length first: a list or object over the limit is not read.
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    const length = keys === undefined ? (value as unknown[]).length : keys.length;
    if (inProof) counts.proof += length;
    else counts.document += length;
    if (counts.document > stopAbove) break;
    const children: unknown[] = keys === undefined ? (value as unknown[]) : keys.map((key) => (value as Record<string, unknown>)[key]);
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push({ value: child, inProof });
  }
  return counts;
}

/**
 * The work one request may cost a worker of `vc serve`, in ms of this machine's single-thread time
 * (bench/sdCost.ts): with two workers, no two requests hold the pool for more than a few seconds.
 */
export const SD_WORK_BUDGET_MS = 1500;

/**
 * bbs-2023 (Digital Bazaar's JavaScript BBS) grows linearly with the signed statements: ms per
 * statement of each step, measured by bench/sdCost.ts (flat and nested documents alike; 17 to 257
 * members, 2 cores under load). Verifying a base proof means deriving a disclosure of everything
 * and verifying it.
 */
export const BBS_2023_MS_PER_STATEMENT = { sign: 6.3, derive: 9.2, verify: 6.3, verifyBase: 12.6 } as const;

/**
 * The most statements a bbs-2023 request may process, per kind of work, within SD_WORK_BUDGET_MS:
 * - `base`: a credential with the issuer's base proof, wherever it is processed (signing it,
 *   importing it, deriving from it: the derive route checks the base proof, then derives, so
 *   21.8 ms a statement, 64 x 21.8 = 1.4 s); one limit, so that a credential vc signs is never
 *   refused by a later step;
 * - `verifyBase`: verifying a base proof alone (POST /credentials/verify given one): 100 x 12.6 = 1.3 s;
 * - `verifyDerived`: verifying a derived proof: the statements it discloses and those it hides,
 *   200 x 6.3 = 1.3 s.
 */
export const BBS_2023_STATEMENT_LIMITS = { base: 64, verifyBase: 100, verifyDerived: 200 } as const;
export type Bbs2023Work = keyof typeof BBS_2023_STATEMENT_LIMITS;

const WORK_NAMES: Record<Bbs2023Work, string> = {
  base: 'a credential with a bbs-2023 base proof is signed, kept or disclosed',
  verifyBase: 'a bbs-2023 base proof is verified',
  verifyDerived: 'a derived bbs-2023 proof is verified',
};
const WORK_MS: Record<Bbs2023Work, number> = {
  base: BBS_2023_MS_PER_STATEMENT.verifyBase + BBS_2023_MS_PER_STATEMENT.derive,
  verifyBase: BBS_2023_MS_PER_STATEMENT.verifyBase,
  verifyDerived: BBS_2023_MS_PER_STATEMENT.verify,
};

/** Bytes of a derived proof value besides its hidden statements: the BBS proof's fixed part (3 points, 4 scalars) and the CBOR around it. */
const DERIVED_PROOF_FIXED_BYTES = 3 + 3 * 48 + 4 * 32;

/**
 * How many statements a derived bbs-2023 proof hides, from the length of its proof value (each
 * hidden statement is a 32-byte scalar of the BBS proof); an over-estimate by the few bytes of
 * its indexes and label map. 0 for anything else (a base proof hides none).
 */
export function hiddenStatementsOf(proof: unknown): number {
  const value = typeof proof === 'object' && proof !== null && !Array.isArray(proof) ? (proof as Record<string, unknown>).proofValue : undefined;
  if (typeof value !== 'string' || !value.startsWith('u')) return 0;
  // base64url: 4 characters for 3 bytes; the header says whether it is a derived proof.
  const bytes = Math.floor(((value.length - 1) * 3) / 4);
  const head = Buffer.from(value.slice(1, 5), 'base64url');
  if (head[0] !== 0xd9 || head[1] !== 0x5d || head[2] !== 0x03) return 0;
  return Math.max(0, Math.floor((bytes - DERIVED_PROOF_FIXED_BYTES) / 32));
}

/**
 * Why `document` is more bbs-2023 work than `work` may cost, or undefined. Counted from the JSON
 * (its members bound its statements: every member adds at most one, and the contexts vc accepts
 * have no @list container), before any JSON-LD work, stopping at the limit.
 */
export function checkBbs2023Cost(document: Record<string, unknown>, work: Bbs2023Work): string | undefined {
  const limit = BBS_2023_STATEMENT_LIMITS[work];
  const hidden = work === 'verifyDerived' ? hiddenStatementsOf(document.proof) : 0;
  const { document: members } = countMembers(document, limit);
  if (members + hidden <= limit) return undefined;
  const counted = members > limit ? `more than ${limit} members` : `${members} members`;
  const hides = work === 'verifyDerived' ? ` and its proof hides about ${hidden} statements` : '';
  return (
    `the credential has ${counted} (proof aside)${hides}: when ${WORK_NAMES[work]}, vc takes at most ${limit} statements ` +
    `(counted as members${work === 'verifyDerived' ? ' plus hidden statements' : ''}), about ${Math.round((limit * WORK_MS[work]) / 100) / 10} s of work`
  );
}
