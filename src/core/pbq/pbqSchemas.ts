/**
 * Input shapes of the proof-by-query operations (spec 2.1, 2.2, 2.3 and the routes of section 4),
 * shared by the CLI (files and options) and the HTTP bodies, parsed with parseInput.
 */
import { z } from 'zod';
import { unsupportedIden3StatusProblem } from '../../iden3/statusTypes.js';

/** The circuit of every credential request `vc` creates and proves. */
export const MTP_ON_CHAIN_CIRCUIT = 'credentialAtomicQueryMTPV2OnChain';

/** Query operators supported by credentialAtomicQueryMTPV2OnChain (and `vc verifier request --op`). */
export const QUERY_OPERATORS = ['$eq', '$lt', '$gt', '$in', '$nin', '$ne'] as const;
export type QueryOperator = (typeof QUERY_OPERATORS)[number];

/** A DID string. */
export const didStringSchema = z.string().regex(/^did:[a-z0-9]+:[A-Za-z0-9:._-]+$/, 'expected a DID such as did:polygonid:polygon:local:2q...');

/** A query operand: one value or a list. */
export const queryValueSchema = z.union([z.number(), z.string(), z.boolean(), z.array(z.union([z.number(), z.string(), z.boolean()]))]);

/** Size of the value array of credentialAtomicQueryMTPV2OnChain: the most values $in/$nin can take. */
export const MAX_QUERY_VALUES = 64;

/** Operators comparing the field with exactly one value. */
const SINGLE_VALUE_OPERATORS: readonly string[] = ['$eq', '$ne', '$lt', '$gt'];

/**
 * Why `value` cannot be the operand of `op` (its shape only: one value or a list of 1 to
 * MAX_QUERY_VALUES), or undefined when it can. The field's type is checked where the context is
 * known (request creation).
 */
export function queryValueShapeProblem(op: string, value: unknown): string | undefined {
  if (SINGLE_VALUE_OPERATORS.includes(op)) {
    return Array.isArray(value) ? `${op} takes one value, not a list of ${value.length} (use $in or $nin for a list)` : undefined;
  }
  if (op === '$in' || op === '$nin') {
    if (!Array.isArray(value)) return `${op} takes a list of 1 to ${MAX_QUERY_VALUES} values`;
    if (value.length === 0) return `${op} takes a list of 1 to ${MAX_QUERY_VALUES} values, not an empty one`;
    if (value.length > MAX_QUERY_VALUES) return `${op} takes at most ${MAX_QUERY_VALUES} values (the size of the circuit's value array), not ${value.length}`;
    return undefined;
  }
  return `unknown operator ${op} (expected one of ${QUERY_OPERATORS.join(', ')})`;
}

/** A condition on one credentialSubject field: exactly one operator, with a value of its shape. */
const fieldCondition = z
  .record(z.string(), queryValueSchema)
  .refine((c) => Object.keys(c).length === 1 && QUERY_OPERATORS.includes(Object.keys(c)[0] as QueryOperator), {
    message: `expected one operator (${QUERY_OPERATORS.join(', ')}) with its value, e.g. {"$lt": 20010101}`,
  })
  .superRefine((condition, check) => {
    const [op, value] = Object.entries(condition)[0] ?? [];
    if (op === undefined || !QUERY_OPERATORS.includes(op as QueryOperator)) return;
    const problem = queryValueShapeProblem(op, value);
    if (problem !== undefined) check.addIssue({ code: 'custom', message: problem, path: [op] });
  });

/** Spec 2.1: a credential request. */
export const credentialRequestSchema = z.object({
  id: z.number().int().positive().refine(Number.isSafeInteger, 'expected a safe integer'),
  circuitId: z.literal(MTP_ON_CHAIN_CIRCUIT),
  query: z.object({
    allowedIssuers: z.array(z.string().min(1)).min(1),
    type: z.string().min(1),
    context: z.string().url(),
    credentialSubject: z.record(z.string(), fieldCondition).refine((s) => Object.keys(s).length === 1, 'expected exactly one field condition'),
  }),
});
export type CredentialRequest = z.output<typeof credentialRequestSchema>;

/** A credentialStatus type vc resolves; another is refused with the reason. */
const statusTypeSchema = z.string().superRefine((type, check) => {
  const problem = unsupportedIden3StatusProblem(type);
  if (problem !== undefined) check.addIssue({ code: 'custom', message: problem });
});

/** Spec 2.3: a credential issued for proof by query (checked loosely; the js-sdk checks proofs). */
export const pbqCredentialSchema = z.looseObject({
  id: z.string().min(1),
  '@context': z.array(z.string()),
  type: z.array(z.string()).min(1),
  credentialSubject: z.looseObject({ id: didStringSchema }),
  issuer: didStringSchema,
  issuanceDate: z.string(),
  expirationDate: z
    .string()
    .refine((date) => !Number.isNaN(Date.parse(date)), 'expected an ISO 8601 date-time such as 2030-01-01T00:00:00Z')
    .optional(),
  credentialSchema: z.looseObject({ id: z.string(), type: z.string() }),
  credentialStatus: z.looseObject({ id: z.string(), type: statusTypeSchema, revocationNonce: z.number().int().nonnegative() }),
  proof: z.array(z.looseObject({ type: z.string() })).min(1),
});
export type PbqCredentialInput = z.output<typeof pbqCredentialSchema>;

/** A credential subject given by the issuer (fields of the type; `id` is set to the holder DID). */
export const subjectSchema = z.record(z.string(), z.unknown());

/**
 * Where an issued credential's revocation status is read: `rhs` (Iden3ReverseSparseMerkleTreeProof,
 * the reverse hash service), `onchain` (Iden3OnchainSparseMerkleTreeProof2023, the chain's
 * IdentityTreeStore, to which the issuer then publishes its revocation tree nodes), `agent`
 * (Iden3commRevocationStatusV1.0, the issuer service's iden3comm agent at VC_ISSUER_URL/agent).
 */
export const ISSUE_STATUS_KINDS = ['rhs', 'onchain', 'agent'] as const;
export type IssueStatusKind = (typeof ISSUE_STATUS_KINDS)[number];
export const issueStatusSchema = z.enum(ISSUE_STATUS_KINDS, {
  error: (issue) => {
    const given = typeof issue.input === 'string' ? issue.input.split(',').map((part) => part.trim()) : [];
    if (given.length > 0 && given.every((part) => part === 'revocation' || part === 'suspension')) {
      return `${String(issue.input)} is a W3C status list purpose (bbs-2023, eddsa-rdfc-2022, ecdsa-rdfc-2019); an iden3 credential takes rhs, onchain or agent`;
    }
    if (given.length > 1) return `an iden3 credential has one status: expected rhs, onchain or agent, got ${JSON.stringify(issue.input)}`;
    return `expected rhs, onchain or agent, got ${JSON.stringify(issue.input)}`;
  },
});

/** Options of issuance (CLI and HTTP). */
export const issueOptionsSchema = z.object({
  holderDid: didStringSchema,
  type: z.string().min(1).optional(),
  subject: subjectSchema.optional(),
  status: issueStatusSchema.optional(),
});
export type IssueOptions = z.output<typeof issueOptionsSchema>;

/** Options of `vc verifier request` (and the request route body). */
export const requestOptionsSchema = z.object({
  type: z.string().min(1).optional(),
  context: z.string().url().optional(),
  field: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.]*$/, 'expected a credentialSubject field name').optional(),
  op: z.enum(QUERY_OPERATORS).optional(),
  value: z.union([queryValueSchema, z.string()]).optional(),
  allowedIssuers: z.array(z.string().min(1)).min(1).optional(),
});
export type RequestOptions = z.output<typeof requestOptionsSchema>;

/** GET /request-status query (verifier). */
export const requestStatusSchema = z.object({
  // A query string gives text: decimal digits only (no 1e3, 0x10 or blank read as numbers).
  request: z.preprocess((value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value), z.number().int().positive().refine(Number.isSafeInteger, 'expected a safe integer')),
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte address'),
});

/** POST /node body of the reverse hash service. */
export const rhsNodesSchema = z.array(z.object({ hash: z.string(), children: z.array(z.string()) })).min(1);
