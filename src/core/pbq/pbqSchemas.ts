/**
 * Input shapes of the proof-by-query operations (spec 2.1, 2.2, 2.3 and the routes of section 4),
 * shared by the CLI (files and options) and the HTTP bodies, parsed with parseInput.
 */
import { keccak_256 } from '@noble/hashes/sha3';
import { z } from 'zod';
import { unsupportedIden3StatusProblem } from '../../iden3/statusTypes.js';

/** The circuit of the spec's credential requests (the default of `vc verifier request`). */
export const MTP_ON_CHAIN_CIRCUIT = 'credentialAtomicQueryMTPV2OnChain';
/** The current generation's on-chain query circuit (CredentialAtomicQueryV3StableValidator). */
export const V3_ON_CHAIN_REQUEST_CIRCUIT = 'credentialAtomicQueryV3OnChain';
/** The circuits a request may name. */
export const REQUEST_CIRCUITS = [MTP_ON_CHAIN_CIRCUIT, V3_ON_CHAIN_REQUEST_CIRCUIT] as const;
export type RequestCircuit = (typeof REQUEST_CIRCUITS)[number];

/**
 * The UniversalVerifier auth methods a proof may be submitted with (`vc holder prove-submit
 * --auth`): embeddedAuth (the query proof's own BJJ auth), authV2, authV3 or authV3-8-32 (a
 * separate auth proof of that circuit whose challenge binds the sender and the responses; V3
 * requests), ethIdentity (the sender is the holder, for a DID that is its Ethereum address). The
 * names are the deployment's method names (and the js-sdk's AuthMethod values).
 */
export const AUTH_METHODS = ['embeddedAuth', 'authV2', 'authV3', 'authV3-8-32', 'ethIdentity'] as const;
export type AuthMethodName = (typeof AUTH_METHODS)[number];
/** The auth methods verified by a separate auth proof (named as their circuits). */
export const AUTH_PROOF_METHODS = ['authV2', 'authV3', 'authV3-8-32'] as const;
export type AuthProofMethod = (typeof AUTH_PROOF_METHODS)[number];
/** Whether an auth method is verified by a separate auth proof. */
export function isAuthProofMethod(method: string | undefined): method is AuthProofMethod {
  return (AUTH_PROOF_METHODS as readonly (string | undefined)[]).includes(method);
}

/** Query operators supported by credentialAtomicQueryMTPV2OnChain (and `vc verifier request --op`). */
export const QUERY_OPERATORS = ['$eq', '$lt', '$gt', '$in', '$nin', '$ne'] as const;
export type QueryOperator = (typeof QUERY_OPERATORS)[number];

/**
 * Query operators of credentialAtomicQueryV3OnChain: the V2 ones and $lte, $gte, $between,
 * $nonbetween, $exists, and $sd (selective disclosure: the field's value is the proof's
 * operatorOutput; written as an empty condition `{}` in the request).
 */
export const V3_QUERY_OPERATORS = [...QUERY_OPERATORS, '$lte', '$gte', '$between', '$nonbetween', '$exists', '$sd'] as const;
export type V3QueryOperator = (typeof V3_QUERY_OPERATORS)[number];

/** The proof types a V3 request may ask for: a signature proof (BJJSignature2021) or an MTP proof. */
export const PROOF_TYPES = { sig: 'BJJSignature2021', mtp: 'Iden3SparseMerkleTreeProof' } as const;
export type ProofTypeName = keyof typeof PROOF_TYPES;

/** The BN254 scalar field modulus r: every circuit value is an element of this field. */
export const FIELD_MODULUS = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;

/**
 * Why `value` is not a usable positive field element (an integer from 1 to r - 1, as a decimal
 * string or a safe JSON integer), or undefined when it is. `what` names it in the message
 * ("a nullifier session id"); 0 is refused with `zeroMeans`, what 0 would mean instead.
 */
export function positiveFieldElementProblem(value: unknown, what: string, zeroMeans: string): string | undefined {
  const shown = JSON.stringify(value);
  const expected = `expected ${what}: an integer from 1 to r - 1 = ${FIELD_MODULUS - 1n}`;
  let integer: bigint;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return `${shown} is not an integer; ${expected}`;
    if (!Number.isSafeInteger(value)) return `${shown} is beyond 2^53 and not exact as a JSON number; give it as a decimal string`;
    integer = BigInt(value);
  } else if (typeof value === 'string' && /^-?\d+$/.test(value)) {
    integer = BigInt(value);
  } else {
    return `${shown} is not an integer; ${expected} (decimal digits)`;
  }
  if (integer < 0n) return `${shown} is negative; ${expected}`;
  if (integer === 0n) return `0 ${zeroMeans}; ${expected}`;
  if (integer >= FIELD_MODULUS) return `${shown} is not below the circuit's field modulus r = ${FIELD_MODULUS}; ${expected}`;
  return undefined;
}

/** A positive field element given as a decimal string or a safe integer (checked with positiveFieldElementProblem). */
function positiveFieldElementSchema(what: string, zeroMeans: string) {
  return z.union([z.string(), z.number()], { error: (issue) => `${JSON.stringify(issue.input)} is not an integer; expected ${what}: an integer from 1 to r - 1 (decimal digits)` }).superRefine((value, check) => {
    const problem = positiveFieldElementProblem(value, what, zeroMeans);
    if (problem !== undefined) check.addIssue({ code: 'custom', message: problem });
  });
}

/** A V3 request's nullifierSessionID (the verifier's session: one nullifier per holder profile and session). */
export const nullifierSessionSchema = positiveFieldElementSchema('a nullifier session id', 'means no nullifier (leave it out for a request without one)');

/** A request's params.nullifierSessionId: as the request gives it out, a decimal string. */
const requestSessionSchema = z.string().superRefine((value, check) => {
  const problem = positiveFieldElementProblem(value, 'a nullifier session id', 'means no nullifier (leave params out)');
  if (problem !== undefined) check.addIssue({ code: 'custom', message: problem });
});

/** The nonce of a holder's profile DID (0 is the genesis DID itself). */
export const profileNonceSchema = positiveFieldElementSchema('a profile nonce', 'is the genesis identity itself, not a profile');

/** A DID string. */
export const didStringSchema = z.string().regex(/^did:[a-z0-9]+:[A-Za-z0-9:._-]+$/, 'expected a DID such as did:polygonid:polygon:local:2q...');

/** A query operand: one value or a list. */
export const queryValueSchema = z.union([z.number(), z.string(), z.boolean(), z.array(z.union([z.number(), z.string(), z.boolean()]))]);

/** Size of the value array of credentialAtomicQueryMTPV2OnChain: the most values $in/$nin can take. */
export const MAX_QUERY_VALUES = 64;

/** Operators comparing the field with exactly one value. */
const SINGLE_VALUE_OPERATORS: readonly string[] = ['$eq', '$ne', '$lt', '$gt', '$lte', '$gte'];

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
  if (op === '$between' || op === '$nonbetween') {
    return Array.isArray(value) && value.length === 2 ? undefined : `${op} takes a list of two values, the bounds [low, high]`;
  }
  if (op === '$exists') return typeof value === 'boolean' ? undefined : `${op} takes true or false`;
  if (op === '$sd') return value === undefined ? undefined : `${op} takes no value (the proof discloses the field's value)`;
  return `unknown operator ${op} (expected one of ${V3_QUERY_OPERATORS.join(', ')})`;
}

/**
 * A condition on one credentialSubject field: exactly one operator, with a value of its shape, or
 * (V3 only, checked with the circuit) the empty condition of selective disclosure.
 */
export const fieldCondition = z
  .record(z.string(), queryValueSchema)
  .refine((c) => Object.keys(c).length === 0 || (Object.keys(c).length === 1 && (V3_QUERY_OPERATORS as readonly string[]).includes(Object.keys(c)[0]!)), {
    message: `expected one operator (${V3_QUERY_OPERATORS.filter((op) => op !== '$sd').join(', ')}) with its value, e.g. {"$lt": 20010101}, or {} to disclose the field (V3)`,
  })
  .superRefine((condition, check) => {
    const [op, value] = Object.entries(condition)[0] ?? [];
    if (op === undefined || !(V3_QUERY_OPERATORS as readonly string[]).includes(op)) return;
    const problem = queryValueShapeProblem(op, value);
    if (problem !== undefined) check.addIssue({ code: 'custom', message: problem, path: [op] });
  });

/** The operator of a field condition: `$sd` for the empty condition. */
export function conditionOperator(condition: Record<string, unknown>): { op: string; value: unknown } {
  const [entry] = Object.entries(condition);
  return entry === undefined ? { op: '$sd', value: undefined } : { op: entry[0], value: entry[1] };
}

/** Spec 2.1: a credential request (and its V3 form: circuitId credentialAtomicQueryV3OnChain, more operators, a proof type). */
export const credentialRequestSchema = z
  .object({
    id: z.number().int().positive().refine(Number.isSafeInteger, 'expected a safe integer'),
    circuitId: z.enum(REQUEST_CIRCUITS),
    query: z.object({
      allowedIssuers: z.array(z.string().min(1)).min(1),
      type: z.string().min(1),
      context: z.string().url(),
      credentialSubject: z.record(z.string(), fieldCondition).refine((s) => Object.keys(s).length === 1, 'expected exactly one field condition'),
      proofType: z.enum([PROOF_TYPES.sig, PROOF_TYPES.mtp]).optional(),
    }),
    // V3: the request's nullifier session (iden3comm's name, params.nullifierSessionId); the
    // verifierID is the UniversalVerifier's, read from the request registered on chain.
    params: z.strictObject({ nullifierSessionId: requestSessionSchema }).optional(),
  })
  .superRefine((request, check) => {
    if (request.circuitId !== MTP_ON_CHAIN_CIRCUIT) return;
    if (request.params !== undefined) check.addIssue({ code: 'custom', message: `${MTP_ON_CHAIN_CIRCUIT} has no nullifier; params.nullifierSessionId needs ${V3_ON_CHAIN_REQUEST_CIRCUIT}`, path: ['params'] });
    if (request.query.proofType !== undefined) check.addIssue({ code: 'custom', message: `${MTP_ON_CHAIN_CIRCUIT} proves with the MTP proof only; a proofType needs ${V3_ON_CHAIN_REQUEST_CIRCUIT}`, path: ['query', 'proofType'] });
    for (const [field, condition] of Object.entries(request.query.credentialSubject)) {
      const { op } = conditionOperator(condition);
      if (!(QUERY_OPERATORS as readonly string[]).includes(op)) {
        check.addIssue({ code: 'custom', message: `${op} needs ${V3_ON_CHAIN_REQUEST_CIRCUIT} (${MTP_ON_CHAIN_CIRCUIT} knows ${QUERY_OPERATORS.join(', ')})`, path: ['query', 'credentialSubject', field] });
      }
    }
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

/**
 * What an issued credential carries: `mtp` (the default) a signature and, once its claim is
 * published with a state transition, the Iden3SparseMerkleTreeProof; `sig` the signature only,
 * given at once without any state transition (provable by V3 requests); `both` the signature at
 * once, its claim queued for the next `vc issuer publish`, which adds the Merkle proof.
 */
export const ISSUE_PROOF_KINDS = ['mtp', 'sig', 'both'] as const;
export const issueProofSchema = z.enum(ISSUE_PROOF_KINDS);

/** Options of issuance (CLI and HTTP). */
export const issueOptionsSchema = z.object({
  holderDid: didStringSchema,
  type: z.string().min(1).optional(),
  subject: subjectSchema.optional(),
  status: issueStatusSchema.optional(),
  proof: issueProofSchema.optional(),
});
export type IssueOptions = z.output<typeof issueOptionsSchema>;

/** Options of `vc verifier request` (and the request route body). */
export const requestOptionsSchema = z.object({
  type: z.string().min(1).optional(),
  context: z.string().url().optional(),
  field: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.]*$/, 'expected a credentialSubject field name').optional(),
  op: z.enum(V3_QUERY_OPERATORS).optional(),
  value: z.union([queryValueSchema, z.string()]).optional(),
  allowedIssuers: z.array(z.string().min(1)).min(1).optional(),
  circuitId: z.enum(REQUEST_CIRCUITS).optional(),
  proofType: z.enum(['sig', 'mtp']).optional(),
  nullifierSessionID: nullifierSessionSchema.optional(),
  bindVerifier: z.boolean().optional(),
});
export type RequestOptions = z.output<typeof requestOptionsSchema>;

/**
 * EIP-55: an address in one case carries no checksum; a mixed-case one must have each letter
 * upper-case exactly where the keccak-256 of its lower-case hex has a nibble of 8 or more.
 */
export function isChecksumValid(address: string): boolean {
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  const hash = keccak_256(new TextEncoder().encode(hex.toLowerCase()));
  for (let i = 0; i < 40; i += 1) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    const char = hex[i]!;
    if (/[a-f]/i.test(char) && (nibble >= 8 ? char !== char.toUpperCase() : char !== char.toLowerCase())) return false;
  }
  return true;
}

/** GET /request-status query (verifier). */
export const requestStatusSchema = z.object({
  // A query string gives text: decimal digits only (no 1e3, 0x10 or blank read as numbers).
  request: z.preprocess((value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value), z.number().int().positive().refine(Number.isSafeInteger, 'expected a safe integer')),
  address: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte address')
    .refine(isChecksumValid, 'the address mixes upper and lower case but its EIP-55 checksum is wrong (a mistyped address? write it all in lower case to skip the check)'),
});

/** POST /node body of the reverse hash service. */
export const rhsNodesSchema = z.array(z.object({ hash: z.string(), children: z.array(z.string()) })).min(1);
