/**
 * iden3comm (issue 28), the verifier's side off chain: authorization requests for Privado ID /
 * js-sdk wallets, and the verification of the JWZ token a wallet answers with.
 */
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { PROOF_TYPES, V3_QUERY_OPERATORS, fieldCondition, requestOptionsSchema } from '../pbq/pbqSchemas.js';
import { AUTH_CIRCUITS, MAX_SCOPE_ITEMS } from '../iden3comm/authLimits.js';

/** The message type of a contract-invoke-request (src/core/iden3comm/contractRequest.ts), named here so the dispatch loads nothing. */
const CONTRACT_INVOKE_REQUEST_TYPE = 'https://iden3-communication.io/proofs/1.0/contract-invoke-request';

/** How a message vc makes is shown besides its JSON (the CLI's --qr and --link; the HTTP routes omit them). */
const MESSAGE_DISPLAY_FIELDS = {
  qr: z.boolean().describe('also show the universal link as a QR code for a terminal').optional(),
  link: z.boolean().describe('also show the universal link (https://wallet.privado.id/#i_m=...) and the iden3comm:// deep link').optional(),
};

/** An authorization request message (checked loosely here; the wallet's record of it is what counts). */
const authRequestMessageSchema = z.looseObject({
  id: z.string().min(1).max(256),
  thid: z.string().min(1).max(256),
  from: z.string().min(1).max(512),
  typ: z.string().max(256).optional(),
  type: z.literal('https://iden3-communication.io/authorization/1.0/request', { error: 'expected an authorization/1.0/request message (vc verifier auth-request)' }),
  body: z.looseObject({ scope: z.array(z.looseObject({ id: z.number(), circuitId: z.string() })).max(MAX_SCOPE_ITEMS) }),
  created_time: z.number().optional(),
  expires_time: z.number().optional(),
});

/** One proof request's verified proof. */
const scopeProofSchema = z.object({ id: z.number(), circuitId: z.string(), issuer: z.string(), type: z.string(), field: z.string(), operator: z.string(), disclosed: z.string().optional() });

/**
 * A scope item's query in the iden3 query language (what Privado ID verifiers write): one
 * credentialSubject field with one operator and its value, or {} to disclose it. vc's own checks
 * (the type's context and field, the value against the field's type) come after, in core.
 */
const scopeQuerySchema = z.strictObject({
  type: z.string().min(1).max(200).describe('credential type'),
  context: z.string().url().max(2048).describe("JSON-LD context URL of the type (default: the bundled, registered or pinned one)").optional(),
  allowedIssuers: z.array(z.string().min(1).max(512)).min(1).max(64).describe('issuer DIDs whose credentials are accepted, or ["*"] (default ["*"])').optional(),
  credentialSubject: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.]*$/, 'expected a credentialSubject field name').max(256), fieldCondition)
    .refine((subject) => Object.keys(subject).length === 1, 'expected one field with its condition, e.g. {"birthDate": {"$lt": 20010101}}, or {"birthDate": {}} to disclose it ($sd)')
    .describe(`one field and its condition: {"$op": value} (${V3_QUERY_OPERATORS.filter((op) => op !== '$sd').join(' ')}) or {} to disclose the value`),
  proofType: z.enum([PROOF_TYPES.sig, PROOF_TYPES.mtp]).describe('the proof the holder must give (default: either)').optional(),
  skipClaimRevocationCheck: z.boolean().describe("true: the holder need not prove the credential is not revoked (default false)").optional(),
}, {
  error: (issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((key) => JSON.stringify(key.slice(0, 40))).join(', ');
      const linked = issue.keys.includes('groupId') ? '; linked queries (groupId) are not made by vc' : '';
      return `unknown member ${keys}: a query has type, context, allowedIssuers, credentialSubject, proofType and skipClaimRevocationCheck${linked}`;
    }
    if (issue.code === 'invalid_type') return 'expected a query: a JSON object {type, context, credentialSubject: {field: {$op: value}}, ...}';
    return undefined;
  },
});

export const iden3commAuthRequest = defineOperation({
  name: 'pbq.authRequest',
  summary:
    "make an iden3comm authorization request (authorization/1.0/request: one credentialAtomicQueryV3 proof request from the query flags, or one per query given in the iden3 query language) from the wallet's verifier DID, for Privado ID / js-sdk wallets, and record it",
  input: z.strictObject({
    queries: z
      .array(scopeQuerySchema)
      .min(1, 'expected one or more queries')
      .max(MAX_SCOPE_ITEMS, `at most ${MAX_SCOPE_ITEMS} queries (proof requests) in one request`)
      .describe(`the proof requests, one per query in the iden3 query language ({type, context, allowedIssuers, credentialSubject: {field: {$op: value}}, proofType, skipClaimRevocationCheck}), at most ${MAX_SCOPE_ITEMS}; instead of the query flags`)
      .optional(),
    type: requestOptionsSchema.shape.type.describe('credential type to prove (default PassportCredential)'),
    context: requestOptionsSchema.shape.context.describe('JSON-LD context URL of the type (default: the bundled or registered one)'),
    field: requestOptionsSchema.shape.field.describe('credentialSubject field (default birthDate)'),
    op: requestOptionsSchema.shape.op.describe(`operator: ${V3_QUERY_OPERATORS.join(' ')} (default $lt; $sd discloses the value)`),
    value: requestOptionsSchema.shape.value.describe('value: as vc verifier request takes it (default 20010101 for birthDate; none for $sd; the list of $in, $nin, $between comma-separated, in one use of the flag)'),
    allowedIssuers: requestOptionsSchema.shape.allowedIssuers.describe('issuer DIDs whose credentials are accepted, or * (default *)'),
    proofType: requestOptionsSchema.shape.proofType.describe('the proof the holder must give, sig (BJJSignature2021) or mtp (Iden3SparseMerkleTreeProof) (default: either)'),
    reason: z.string().min(1).max(500).describe('why the verifier asks (shown by the wallet)').optional(),
    callback: z.string().min(1).max(2048).describe('where the wallet posts its JWZ answer (an http(s) URL, given sessionId=<request id> when it names none; default: none, the answer is verified with vc verifier verify --jwz)').optional(),
    expires: z.number().int().describe('seconds until the request expires (default 3600, at most 30 days)').optional(),
    accept: z
      .array(z.enum(AUTH_CIRCUITS, { error: `expected auth circuits of ${AUTH_CIRCUITS.join(', ')}` }))
      .min(1, 'expected at least one auth circuit')
      .max(AUTH_CIRCUITS.length)
      .refine((circuits) => new Set(circuits).size === circuits.length, 'expected each auth circuit once')
      .describe(`the auth circuits a wallet may prove its JWZ answer with, in the request's accept profile: ${AUTH_CIRCUITS.join(', ')} (default authV2)`)
      .optional(),
    ...MESSAGE_DISPLAY_FIELDS,
  }),
  mutates: true,
  run: async (ctx, input, call) => {
    const { createAuthRequest } = await import('../iden3comm/authRequest.js');
    return createAuthRequest(ctx, input, call.names);
  },
});

/** The transaction a contract-invoke message names (the js-sdk's ContractInvokeTransactionData). */
const transactionDataSchema = z.object({
  contract_address: z.string().describe("the UniversalVerifier's address"),
  method_id: z.string().describe('06c86a91: UniversalVerifier.submitResponse'),
  chain_id: z.number(),
  network: z.string().optional(),
  txHash: z.string().describe('in the response: the first transaction').optional(),
});

/** A contract-invoke-request as vc makes it (the js-sdk's ContractInvokeRequest). */
const contractInvokeRequestResultSchema = z.object({
  id: z.string(),
  thid: z.string(),
  typ: z.string(),
  type: z.literal('https://iden3-communication.io/proofs/1.0/contract-invoke-request'),
  from: z.string().describe("the UniversalVerifier's DID (did:iden3:privado:main:..., its verifierID): the verifier the proofs are bound to"),
  to: z.string().describe("the holder's DID, when given").optional(),
  body: z.object({
    reason: z.string().optional(),
    transaction_data: transactionDataSchema,
    scope: z.array(z.object({ id: z.number(), circuitId: z.string(), query: z.record(z.string(), z.unknown()), params: z.record(z.string(), z.unknown()).optional() })),
    accept: z.array(z.string()).optional(),
  }),
  created_time: z.number().optional(),
  expires_time: z.number().optional(),
});

export const iden3commContractRequest = defineOperation({
  name: 'pbq.contractRequest',
  summary:
    "make an iden3comm contract-invoke-request (proofs/1.0/contract-invoke-request) from the UniversalVerifier's DID for V3 requests registered on it and bound to it (--bind-verifier): a Privado ID / js-sdk wallet, or vc holder respond, proves them and submits the proofs itself (submitResponse, embedded auth)",
  input: z.strictObject({
    id: z
      .array(z.string().min(1).max(40))
      .min(1, 'give at least one request id (vc verifier request --circuit credentialAtomicQueryV3OnChain registers one)')
      .max(16, 'at most 16 requests in one message')
      .describe('the registered requests (their ids), each a credentialAtomicQueryV3OnChain request bound to the UniversalVerifier (vc verifier request --bind-verifier)'),
    reason: z.string().min(1).max(500).describe('why the verifier asks (shown by the wallet)').optional(),
    to: z.string().min(1).max(512).describe("the holder's DID, when known (the js-sdk's handler needs one; a wallet may fill it in)").optional(),
    expires: z.number().int().describe('seconds until the message expires (default 3600, at most 30 days)').optional(),
    ...MESSAGE_DISPLAY_FIELDS,
  }),
  result: contractInvokeRequestResultSchema,
  // Reads the chain only: nothing is recorded (the outcome is on chain).
  mutates: false,
  run: async (ctx, input, call) => {
    const { createContractInvokeRequest } = await import('../iden3comm/contractRequest.js');
    return createContractInvokeRequest(ctx, input, call.names);
  },
});

export const iden3commVerify = defineOperation({
  name: 'pbq.authVerify',
  summary: 'verify an iden3comm authorization response (the JWZ token a wallet answered a vc auth request with), off chain: verified with the sender and disclosed values, or refused with the reason',
  input: z.strictObject({
    jwz: z.string().min(1, 'empty; expected a JWZ token (header.payload.proof)').describe('the JWZ token (a file holding it on the command line)'),
    request: authRequestMessageSchema.describe('the request it answers (vc verifier auth-request)'),
  }),
  result: z.object({
    verified: z.boolean(),
    request: z.string(),
    from: z.string().optional(),
    reason: z.string().optional(),
    proofs: z.array(scopeProofSchema).describe("each proof request's proof, with the value it disclosed").optional(),
    disclosed: z.record(z.string(), z.string()).describe('the values disclosed ($sd), one key a proof: its field; Type.field when another proof discloses the same field; Type.field#scopeId when that is not enough or another key is that (a field named Type.field)').optional(),
  }),
  // Records the token as used (replays are refused), in store transactions only: a server need not
  // hold the exclusive turn through the chain reads and the circuits' first build.
  mutates: 'coalesced',
  run: async (ctx, input, call) => {
    const { verifyAuthResponse } = await import('../iden3comm/authVerify.js');
    return verifyAuthResponse(ctx, { jwz: input.jwz, request: input.request as never }, call.names);
  },
  // Printed or written: the same token is a replay from now on (until then a re-run gets this result again).
  delivered: async (ctx, input) => {
    const { authVerifyDelivered } = await import('../iden3comm/authVerify.js');
    await authVerifyDelivered(ctx, input.jwz);
  },
  failure: (result) => (result.verified ? undefined : `refused: ${result.reason ?? 'not verified'}`),
});


const sessionIdSchema = z.string().min(1).max(256);
const sessionStatusSchema = z.object({
  id: z.string(),
  status: z.enum(['pending', 'verified', 'refused']),
  from: z.string().optional(),
  disclosed: z.record(z.string(), z.string()).describe('the values disclosed ($sd), one key a proof: its field; Type.field when another proof discloses the same field; Type.field#scopeId when that is not enough or another key is that (a field named Type.field)').optional(),
  proofs: z.array(scopeProofSchema).describe("verified: each proof request's proof, with the value it disclosed").optional(),
  reason: z.string().optional(),
  updatedAt: z.string().optional(),
});

export const iden3commSessionRequest = defineOperation({
  name: 'pbq.authSession',
  summary: 'the authorization request of a session, as made (what an iden3comm://?request_uri= link names)',
  input: z.strictObject({ id: sessionIdSchema.describe('the request id (= session id)') }),
  result: authRequestMessageSchema,
  mutates: false,
  run: async (ctx, input, call) => {
    const { authRequestOfSession } = await import('../iden3comm/authVerify.js');
    return authRequestOfSession(ctx, input.id, call.names);
  },
});

export const iden3commCallback = defineOperation({
  name: 'pbq.authCallback',
  summary: "a wallet's answer to a session's authorization request: the JWZ token, verified off chain and kept as the session's outcome",
  input: z.strictObject({
    sessionId: sessionIdSchema.describe('the session (the request id)'),
    jwz: z.string().min(1, 'empty; expected a JWZ token (header.payload.proof)').describe('the JWZ token (the body, text/plain or application/iden3-zkp-json)'),
  }),
  result: iden3commVerify.result!,
  // Store transactions only (the accepted token, the session's outcome): callbacks are served as
  // they come, never waiting behind another request's exclusive turn, nor holding it.
  mutates: 'coalesced',
  run: async (ctx, input, call) => {
    const { answerAuthSession } = await import('../iden3comm/authVerify.js');
    return answerAuthSession(ctx, input, call.names);
  },
});

export const iden3commSessionStatus = defineOperation({
  name: 'pbq.authStatus',
  summary: "a session's outcome: pending, verified (the sender and the disclosed values) or refused (the reason)",
  input: z.strictObject({ id: sessionIdSchema.describe('the request id (= session id)') }),
  result: sessionStatusSchema,
  mutates: false,
  run: async (ctx, input, call) => {
    const { authSessionStatus } = await import('../iden3comm/authVerify.js');
    return authSessionStatus(ctx, input.id, call.names);
  },
});

export const iden3commRespond = defineOperation({
  name: 'pbq.authRespond',
  summary:
    "answer an iden3comm authorization request as a wallet: prove each scope item (credentialAtomicQueryV3) with a held credential, pack the answer as a JWZ (its auth proof authV2, or authV3 when the request allows no authV2), and write it or post it to the request's callback; a contract-invoke-request's proofs are submitted on chain instead",
  input: z.strictObject({
    request: z
      .union([z.string().min(1, 'empty; expected an authorization request'), z.record(z.string(), z.unknown())])
      .describe('the authorization request: a file holding it, an iden3comm:// link (i_m= or request_uri=), a universal link (https://...#i_m=) or the URL serving it'),
    credential: z.record(z.string(), z.unknown()).describe('the iden3 credential to prove every scope item with (default: for each, the newest held one that satisfies it)').optional(),
    credentialId: z.string().min(1).max(200).describe('a held credential (its id in the store) to prove every scope item with').optional(),
    post: z.boolean().describe("post the token to the request's callbackUrl and report the verifier's answer").optional(),
    allowRemote: z.boolean().describe('let the request_uri and the callback be on another host than this machine (https only); without it, only 127.0.0.1, localhost and ::1').optional(),
  }),
  result: z.union([
    z.object({
    token: z.string().describe('the JWZ token: the authorization/1.0/response, its auth proof authV2 (or authV3-8-32 / authV3 when the request allows no authV2)'),
    request: z.string(),
    thid: z.string(),
    from: z.string().describe('the holder DID that answered'),
    to: z.string().describe('the verifier DID (the request\'s from)'),
    scope: z.array(z.object({ id: z.number(), circuitId: z.string(), credential: z.string() })),
    posted: z
      .object({
        url: z.string(),
        status: z.number(),
        body: z.unknown(),
        truncated: z.boolean().describe("true when the verifier's answer was longer than 64 KiB: body is its first 64 KiB, as text").optional(),
      })
      .optional(),
    }),
    // A contract-invoke-request's answer: the proofs are on chain, each with its transaction.
    z.object({
      id: z.string(),
      thid: z.string(),
      typ: z.string(),
      type: z.literal('https://iden3-communication.io/proofs/1.0/contract-invoke-response'),
      from: z.string().describe('the holder DID that answered'),
      to: z.string().describe("the verifier DID (the request's from)"),
      body: z.object({
        transaction_data: transactionDataSchema,
        scope: z.array(z.looseObject({ id: z.number(), circuitId: z.string(), txHash: z.string(), proof: z.unknown(), pub_signals: z.array(z.string()) })),
        authProof: z
          .looseObject({ authMethod: z.enum(['embeddedAuth', 'authV2', 'authV3', 'authV3-8-32', 'ethIdentity']), userDid: z.string().optional() })
          .describe('how the proofs were authenticated: embeddedAuth (in the query proofs), authV2, authV3 or authV3-8-32 (a separate auth proof of that circuit, V3 items only) or ethIdentity (the sender, userDid)'),
      }),
      created_time: z.number(),
    }),
  ]),
  // It takes the exclusive turn itself for the proofs (and a new holder identity), and waits for
  // the verifier's answer to a post outside it (up to a minute): the other mutating routes go on.
  mutates: 'coalesced',
  run: async (ctx, input, call) => {
    const { readRequestMessage, respondToAuthRequest } = await import('../iden3comm/authRespond.js');
    // The message's type says which: an authorization request, or a contract-invoke-request (answered on chain).
    const message = await readRequestMessage(input.request, { allowRemote: input.allowRemote === true, names: call.names });
    if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === CONTRACT_INVOKE_REQUEST_TYPE) {
      const { respondToContractInvoke } = await import('../iden3comm/contractRespond.js');
      return respondToContractInvoke(ctx, message, input, call.names);
    }
    return respondToAuthRequest(ctx, { ...input, request: message as Record<string, unknown> }, call.names);
  },
  // Posted answers (and contract submissions) are kept (a re-run of the same request by the same holder gets it, never a second one) until delivered.
  delivered: async (ctx, _input, result) => {
    if ('token' in result) {
      const { authRespondDelivered } = await import('../iden3comm/authRespond.js');
      authRespondDelivered(ctx, result);
      return;
    }
    const { contractRespondDelivered } = await import('../iden3comm/contractRespond.js');
    contractRespondDelivered(ctx, result as never);
  },
  failure: (result) => {
    if (!('token' in result)) return undefined;
    const posted = result.posted;
    if (posted === undefined || (posted.status >= 200 && posted.status < 300)) return undefined;
    // The verifier's reason: a refusal's (vc's callback: {verified: false, reason}), an error body's ({error: {message}} or {error}), or the body itself.
    const body = posted.body as { reason?: unknown; error?: unknown; message?: unknown } | string | null;
    const error = typeof body === 'object' && body !== null ? body.error : undefined;
    const errorMessage = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : error;
    const found = typeof body === 'string' ? body : body === null ? '' : [body.reason, errorMessage, body.message].find((item) => typeof item === 'string');
    const reason = typeof found === 'string' ? found : JSON.stringify(body);
    return `the verifier at ${posted.url} answered ${posted.status}${reason === '' ? '' : `: ${reason.split('\n')[0]!.slice(0, 300)}`}`;
  },
});

/** An iden3comm message as vc's agent answers it (the fields every message has; the body by type). */
const agentAnswerSchema = z.looseObject({ id: z.string(), typ: z.string(), type: z.string(), thid: z.string(), from: z.string(), to: z.string().optional(), body: z.unknown() });

export const iden3commOffer = defineOperation({
  name: 'pbq.offer',
  summary:
    "make an iden3comm credential offer (credentials/1.0/offer) from the wallet's issuer DID to a holder, for credentials this issuer issued to that holder: a wallet fetches them from the issuer's agent (POST /agent) with a JWZ-authenticated fetch-request",
  input: z.strictObject({
    holder: z.string().min(1).max(512).describe("the holder's iden3 DID (the credentials' subject)"),
    id: z.array(z.string().min(1).max(256)).min(1, 'give at least one credential id (vc issuer credentials lists them)').max(32).describe('the credentials offered (their ids, urn:uuid:...)'),
    url: z.string().min(1).max(2048).describe("the issuer agent's URL the wallet posts its fetch-request to (default: VC_ISSUER_URL, or the served issuer's URL, + /agent)").optional(),
    ...MESSAGE_DISPLAY_FIELDS,
  }),
  result: agentAnswerSchema,
  // The wallet's issuer identity is created on first use.
  mutates: true,
  run: async (ctx, input, call) => {
    const { createCredentialOffer } = await import('../iden3comm/credentialOffer.js');
    return (await createCredentialOffer(ctx, input, call.names)) as unknown as z.output<typeof agentAnswerSchema>;
  },
});

export const iden3commAgentFetch = defineOperation({
  name: 'pbq.agentFetch',
  summary:
    "the issuer's iden3comm agent, given a JWZ (application/iden3-zkp-json): answers a credentials/1.0/fetch-request whose authV2 proof is the credential subject's with a plain credentials/1.0/issuance-response carrying the credential",
  input: z.strictObject({
    jwz: z.string().min(1, 'empty; expected a JWZ token (header.payload.proof)').describe('the fetch-request packed as a JWZ (authV2)'),
  }),
  result: agentAnswerSchema,
  mutates: false,
  run: async (ctx, input, call) => {
    const { answerFetchRequest } = await import('../iden3comm/credentialFetch.js');
    return answerFetchRequest(ctx, input.jwz, call.names);
  },
});

export const iden3commHolderFetch = defineOperation({
  name: 'pbq.holderFetch',
  summary:
    "fetch the credentials of an iden3comm credential offer as a wallet: for each, a credentials/1.0/fetch-request packed as a JWZ (authV2) is posted to the offer's agent URL, and the credential answered is kept in the holder's store (with the import checks)",
  input: z.strictObject({
    offer: z.string().min(1, 'empty; expected a credential offer').describe('the offer (credentials/1.0/offer): a file holding it, or an iden3comm://?i_m= or universal link (https://...#i_m=) carrying it'),
    allowRemote: z.boolean().describe("let the offer's agent URL be on another host than this machine (https only); without it, only 127.0.0.1, localhost and ::1").optional(),
  }),
  result: z.object({
    offer: z.string(),
    issuer: z.string(),
    holder: z.string(),
    url: z.string(),
    stored: z.array(z.looseObject({ id: z.string(), alreadyHeld: z.boolean() })),
  }),
  mutates: true,
  run: async (ctx, input, call) => {
    const { fetchOfferedCredentials } = await import('../iden3comm/holderFetch.js');
    return fetchOfferedCredentials(ctx, input, call.names);
  },
});
