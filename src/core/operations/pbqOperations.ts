/**
 * Proof by query (iden3): DIDs, issuance and revocation with the state published on chain,
 * credential requests on the UniversalVerifier, the holder's proof, and the embedded reverse hash
 * service. Input field names are the spec's HTTP body names.
 */
import { z } from 'zod';
import type { Context } from '../../context.js';
import { defineOperation, type OperationCall } from '../operation.js';
import {
  AUTH_METHODS,
  credentialRequestSchema,
  didStringSchema,
  issueProofSchema,
  issueStatusSchema,
  nullifierSessionSchema,
  pbqCredentialSchema,
  profileNonceSchema,
  QUERY_OPERATORS,
  REQUEST_CIRCUITS,
  V3_QUERY_OPERATORS,
  requestOptionsSchema,
  requestStatusSchema,
  rhsNodesSchema,
  subjectSchema,
} from '../pbq/pbqSchemas.js';

const didObjectSchema = z.object({
  method: z.string(),
  id: z.string(),
  idStrings: z.array(z.string()),
  params: z.array(z.unknown()),
  path: z.string(),
  pathSegments: z.array(z.string()),
  query: z.string(),
  fragment: z.string(),
});

const safeInteger = z.number().int().refine(Number.isSafeInteger, 'expected a safe integer');

export const pbqHolderDid = defineOperation({
  name: 'pbq.holderDid',
  summary: "create the holder's iden3 DID (BJJ key and trees in the wallet); returns the stored one when it exists (spec 2.2; created says which)",
  input: z
    .strictObject({
      new: z.boolean().describe('create another identity and make it the default').optional(),
      ethereum: z.boolean().describe("the DID of the address this wallet signs with (WALLET_KEY): no key of its own, proved with the UniversalVerifier's ethIdentity auth method (V3 requests); becomes the default").optional(),
      profileNonce: profileNonceSchema
        .describe(
          "a profile DID of the holder's identity with this nonce (1 to r - 1, a decimal string or an integer): created once, then returned; credentials issued to it give nullifiers to V3 requests with a nullifier session",
        )
        .meta({ examples: ['7'] })
        .optional(),
    })
    .refine((input) => [input.new === true, input.ethereum === true, input.profileNonce !== undefined].filter(Boolean).length <= 1, {
      message: 'new, ethereum and profileNonce exclude each other',
      path: ['ethereum'],
    }),
  // The spec's record (its message whether created or not), and whether this call created the DID;
  // for a profile, its identity and nonce.
  result: z.object({ message: z.string(), did: didObjectSchema, did_String: z.string(), created: z.boolean(), genesisDid: z.string().optional(), profileNonce: z.string().optional() }),
  mutates: true,
  run: async (ctx, input) => {
    const { createHolderIdentity } = await import('../pbq/identities.js');
    return createHolderIdentity(ctx, { new: input.new, ethereum: input.ethereum, profileNonce: input.profileNonce });
  },
});

export const pbqIssuerDid = defineOperation({
  name: 'pbq.issuerDid',
  summary: "create (or return) the issuer's iden3 DID (spec 2.2, payload form, with did_String as the holder's); ISSUER_DID selects an existing identity of the wallet",
  input: z.strictObject({}),
  // The spec's {payload}, with the DID as a string and whether this call created it (additive).
  result: z.object({ payload: didObjectSchema, did_String: z.string(), created: z.boolean() }),
  mutates: true,
  run: async (ctx) => {
    const { createIssuerIdentity } = await import('../pbq/identities.js');
    return createIssuerIdentity(ctx);
  },
});

/** A credential type that is not bundled, registered for this process (`context` with `schema`). */
const typeRegistration = {
  context: z.unknown().describe('JSON-LD context of a type that is not bundled (with schema)').optional(),
  schema: z
    .unknown()
    .describe('iden3 JSON schema of that type (with context): its URL in $metadata.uris.jsonSchema (the official format) or $id, its context in $metadata.uris.jsonLdContext, its type in $metadata.type (else give type)')
    .optional(),
};

/** Registers the type `context` and `schema` describe, when given; returns its name. */
async function registeredType(ctx: Context, input: { context?: unknown; schema?: unknown; type?: string | undefined }, call: OperationCall): Promise<string | undefined> {
  if (input.context === undefined && input.schema === undefined) return undefined;
  if (input.context === undefined || input.schema === undefined) {
    const { InputError } = await import('../../errors.js');
    throw new InputError(`${call.names('context')} and ${call.names('schema')} go together (a JSON-LD context and its JSON schema)`, { field: input.context === undefined ? 'context' : 'schema' });
  }
  const { registerCredentialType } = await import('../pbq/pbqIssuance.js');
  return (await registerCredentialType(ctx, { schema: input.schema, context: input.context, type: input.type, names: call.names })).type;
}

const issueItemFields = {
  did: didStringSchema.describe("the holder's DID (credentialSubject.id)"),
  type: z.string().min(1).describe('credential type (default PassportCredential)').optional(),
  subject: subjectSchema.describe('the credentialSubject fields (default for PassportCredential: the sample passport)').optional(),
};

const issueResultSchema = z.object({ message: z.string(), credential: z.record(z.string(), z.unknown()) });

/** Where the issued credentials' revocation status is read. */
const issueStatusField = {
  status: issueStatusSchema
    .describe(
      "the credential's status: rhs (Iden3ReverseSparseMerkleTreeProof, the reverse hash service; the default), onchain (Iden3OnchainSparseMerkleTreeProof2023: the issuer's revocation tree nodes are published to the chain's IdentityTreeStore with every publication from then on) or agent (Iden3commRevocationStatusV1.0: holders ask the issuer service's iden3comm agent, POST VC_ISSUER_URL/agent)",
    )
    .optional(),
};

export const pbqIssue = defineOperation({
  name: 'pbq.issue',
  summary: 'issue an iden3 credential to a holder DID (spec 2.3): BJJ signature, state published on chain, Merkle tree proof; concurrent calls share one state transition',
  input: z.strictObject({
    ...issueItemFields,
    ...issueStatusField,
    proof: issueProofSchema
      .describe(
        'mtp (the default): signed and published with a state transition, the credential carries BJJSignature2021 and Iden3SparseMerkleTreeProof; sig: signed only (BJJSignature2021), given at once without a state transition, for V3 requests (signature proofs); both: signed at once, its claim published by the next vc issuer publish (POST /publish), which adds the Iden3SparseMerkleTreeProof',
      )
      .optional(),
    ...typeRegistration,
  }),
  result: issueResultSchema,
  // Concurrent issuances are grouped into one publication (src/core/pbq/coalesce.ts).
  mutates: 'coalesced',
  run: async (ctx, input, call) => {
    const type = (await registeredType(ctx, input, call)) ?? input.type;
    const item = {
      holderDid: input.did,
      ...(type === undefined ? {} : { type }),
      ...(input.subject === undefined ? {} : { subject: input.subject }),
      ...(input.status === undefined ? {} : { status: input.status }),
      names: call.names,
    };
    if (input.proof === 'sig' || input.proof === 'both') {
      // No publication now: one signature in this process's exclusive turn.
      const { issueSignedPbqCredential } = await import('../pbq/pbqIssuance.js');
      return ctx.exclusive(() => issueSignedPbqCredential(ctx, item, { queue: input.proof === 'both' }));
    }
    const { issueCoalesced } = await import('../pbq/coalesce.js');
    return issueCoalesced(ctx, item, call.idempotency);
  },
});

/** The most lines of a batch (src/core/pbq/pbqIssuance.ts MAX_BATCH_CREDENTIALS). */
const MAX_BATCH = 1000;

export const pbqIssueBatch = defineOperation({
  name: 'pbq.issueBatch',
  summary: `issue up to ${MAX_BATCH} iden3 credentials with one state transition; all are checked first (a bad item: nothing is issued); re-running a batch interrupted by a crash completes it`,
  input: z.strictObject({
    batch: z
      .array(z.strictObject({ ...issueItemFields, ...issueStatusField }))
      .min(1, 'the batch is empty: expected one credential per line')
      .max(MAX_BATCH, `a batch holds at most ${MAX_BATCH} credentials`)
      .describe('the credentials to issue: JSON Lines, one {"did", "type"?, "subject"?, "status"?} per line (the body of POST /generate-pbq-credentials; a line\'s status overrides the batch\'s)'),
    ...issueStatusField,
    ...typeRegistration,
  }),
  result: z.object({
    credentials: z.array(issueResultSchema),
    txId: z.string(),
    state: z.string(),
    recovered: z.boolean(),
  }),
  mutates: true,
  run: async (ctx, input, call) => {
    const registered = await registeredType(ctx, input, call);
    const { issuePbqBatch } = await import('../pbq/pbqIssuance.js');
    // The same input names the same batch: a re-run whose predecessor's result was never written
    // (killed at any step) gets that batch back.
    const batchKey = await batchKeyOf(input);
    const items = input.batch.map((item, index) => {
      const type = item.type ?? registered;
      return {
        holderDid: item.did,
        ...(type === undefined ? {} : { type }),
        ...(item.subject === undefined ? {} : { subject: item.subject }),
        ...((item.status ?? input.status) === undefined ? {} : { status: item.status ?? input.status }),
        names: call.names,
        base: `batch[${index}]`,
      };
    });
    return issuePbqBatch(ctx, items, { batchKey });
  },
  // Written out: the same input issues anew from now on.
  delivered: async (ctx, input) => {
    const { forgetCompletedBatch } = await import('../pbq/pbqIssuance.js');
    forgetCompletedBatch(ctx, await batchKeyOf(input));
  },
});

/** The digest naming a batch input: its lines and the type they register, if any. */
async function batchKeyOf(input: { batch: unknown; context?: unknown; schema?: unknown; status?: string | undefined }): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256')
    .update(JSON.stringify({ batch: input.batch, context: input.context ?? null, schema: input.schema ?? null, ...(input.status === undefined ? {} : { status: input.status }) }))
    .digest('hex');
}

export const pbqRevoke = defineOperation({
  name: 'pbq.revoke',
  summary: 'revoke an iden3 credential by its revocation nonce and publish the new state on chain',
  input: z.strictObject({ nonce: safeInteger.nonnegative().describe('credentialStatus.revocationNonce of the credential') }),
  result: z.object({ message: z.string(), issuer: z.string(), nonce: z.number(), txId: z.string(), state: z.string() }),
  mutates: true,
  run: async (ctx, input) => {
    const { revokePbqCredential } = await import('../pbq/pbqIssuance.js');
    return revokePbqCredential(ctx, input);
  },
});

export const pbqPublish = defineOperation({
  name: 'pbq.publish',
  summary: 'publish, with one state transition, the claims of the credentials issued with proof both since the last publication; gives them back with their Iden3SparseMerkleTreeProof',
  input: z.strictObject({}),
  result: z.object({ issuer: z.string(), credentials: z.array(issueResultSchema), txId: z.string().optional(), state: z.string().optional() }),
  mutates: true,
  run: async (ctx) => {
    const { publishQueuedCredentials } = await import('../pbq/pbqIssuance.js');
    const result = await publishQueuedCredentials(ctx);
    return { issuer: result.issuer, credentials: result.credentials, ...(result.txId === undefined ? {} : { txId: result.txId }), ...(result.state === undefined ? {} : { state: result.state }) };
  },
});

export const pbqIssued = defineOperation({
  name: 'pbq.issued',
  summary: 'the iden3 credentials this issuer issued (an interrupted issuance is completed first), or one whole with its proofs',
  input: z.strictObject({ id: z.string().min(1).describe('the credential (urn:uuid:...) to give whole').optional() }),
  // Completing an interrupted publication sends a transaction.
  mutates: true,
  run: async (ctx, input) => {
    const { listIssuedCredentials } = await import('../pbq/pbqIssuance.js');
    return listIssuedCredentials(ctx, { id: input.id });
  },
});

export const pbqRequest = defineOperation({
  name: 'pbq.request',
  summary: 'create a credential request (spec 2.1; credentialAtomicQueryMTPV2OnChain, or credentialAtomicQueryV3OnChain) and register it on the UniversalVerifier',
  input: z.strictObject({
    type: requestOptionsSchema.shape.type.describe('credential type to prove (default PassportCredential)'),
    context: requestOptionsSchema.shape.context.describe('JSON-LD context URL of the type (default: the bundled one)'),
    field: requestOptionsSchema.shape.field.describe('credentialSubject field (default birthDate)'),
    op: requestOptionsSchema.shape.op.describe(`operator: ${QUERY_OPERATORS.join(' ')}; with the V3 circuit also ${V3_QUERY_OPERATORS.filter((op) => !(QUERY_OPERATORS as readonly string[]).includes(op)).join(' ')} (default $lt)`),
    value: requestOptionsSchema.shape.value.describe('value: an integer, a string, a,b,c for $in/$nin, low,high for $between/$nonbetween, true|false for $exists, none for $sd (default 20010101 for the field birthDate; required for another field)'),
    allowedIssuers: requestOptionsSchema.shape.allowedIssuers.describe('issuer DIDs whose credentials are accepted, or * (default *)'),
    circuitId: requestOptionsSchema.shape.circuitId.describe(`the query circuit: ${REQUEST_CIRCUITS.join(' or ')} (default ${REQUEST_CIRCUITS[0]})`),
    proofType: requestOptionsSchema.shape.proofType.describe('V3 only: the proof the holder must give, sig (BJJSignature2021) or mtp (Iden3SparseMerkleTreeProof) (default: either)'),
    nullifierSessionID: nullifierSessionSchema
      .describe(
        "V3 only: a nullifier session (1 to r - 1, a decimal string or an integer, unused by any other request of the UniversalVerifier): each holder profile gets one nullifier for it, bound to the UniversalVerifier's verifierID; credentials must be issued to a profile DID (default: no nullifier)",
      )
      .meta({ examples: ['770077'] })
      .optional(),
    bindVerifier: requestOptionsSchema.shape.bindVerifier.describe(
      "V3 only: bind the request to the UniversalVerifier (its verifierID in the query even without a nullifier session), as Privado ID / js-sdk wallets prove on-chain requests: needed for vc verifier contract-request (default: bound only with a nullifier session)",
    ),
  }),
  result: credentialRequestSchema,
  mutates: true,
  run: async (ctx, input, call) => {
    const { createCredentialRequest } = await import('../pbq/request.js');
    const options = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
    return createCredentialRequest(ctx, options, call.names);
  },
});

export const pbqRequestStatus = defineOperation({
  name: 'pbq.requestStatus',
  summary: 'whether an address has a verified proof for a request (read from the UniversalVerifier)',
  input: z.strictObject({
    request: requestStatusSchema.shape.request.describe('the request id'),
    address: requestStatusSchema.shape.address.describe('the address that submitted the proof'),
  }),
  result: z.object({
    requestId: z.number(),
    address: z.string(),
    verifier: z.string(),
    isVerified: z.boolean(),
    validatorVersion: z.string(),
    timestamp: z.number(),
    circuitId: z.string().optional(),
    responseFields: z.record(z.string(), z.string()).optional(),
    disclosed: z.record(z.string(), z.string()).optional(),
    nullifierFirstUsedBy: z
      .string()
      .describe(
        "V3 with a nullifier session: another address whose verified proof gave this response's nullifier first (the same holder profile and session); the contracts accepted it again (isVerified), vc does not accept it (the CLI exits 1)",
      )
      .optional(),
  }),
  mutates: false,
  run: async (ctx, input) => {
    const { readRequestStatus } = await import('../pbq/request.js');
    return readRequestStatus(ctx, input);
  },
  failure: (result) => {
    if (!result.isVerified) return `address ${result.address} has no verified proof for request ${result.requestId}`;
    if (result.nullifierFirstUsedBy === undefined) return undefined;
    return `the proof of ${result.address} for request ${result.requestId} is verified on chain, but its nullifier ${result.responseFields?.nullifier ?? ''} was first used by ${result.nullifierFirstUsedBy} (the same holder profile and session): not accepted`;
  },
});

export const pbqProveSubmit = defineOperation({
  name: 'pbq.proveSubmit',
  summary: "prove the request's query over an iden3 credential (credentialAtomicQueryMTPV2OnChain or credentialAtomicQueryV3OnChain) and submit it to the UniversalVerifier",
  input: z.strictObject({
    verifiableCredential: pbqCredentialSchema.describe("the credential (spec 2.3); without it, a held one by its id, or else the holder's newest iden3 credential the request can use").optional(),
    credentialId: z.string().min(1).max(200).describe('the id of a held iden3 credential to prove with (vc holder credentials list)').optional(),
    credentialRequest: credentialRequestSchema.describe('the credential request (spec 2.1)'),
    auth: z
      .enum(AUTH_METHODS)
      .describe(
        "the UniversalVerifier auth method to submit with: embeddedAuth (the query proof's own auth), authV2, authV3 or authV3-8-32 (a separate auth proof of that circuit made with vc's circuit, built on first use, V3 requests only; refused before proving when the chain's verifier of that method is not the circuit in use), ethIdentity (a holder whose DID is the sending Ethereum address); by default embeddedAuth, or ethIdentity for an Ethereum-based DID",
      )
      .optional(),
  }),
  result: z.record(z.string(), z.unknown()),
  mutates: true,
  run: async (ctx, input, call) => {
    const { refuseCredentialAndId, selectHeldIden3Credential } = await import('../holder/heldSelection.js');
    refuseCredentialAndId(call.names, 'verifiableCredential', { credential: input.verifiableCredential, credentialId: input.credentialId });
    const credential = input.verifiableCredential ?? selectHeldIden3Credential(ctx, { credentialId: input.credentialId, request: input.credentialRequest, names: call.names });
    const { proveAndSubmit } = await import('../pbq/prove.js');
    return proveAndSubmit(ctx, { credential, request: input.credentialRequest, names: call.names, auth: input.auth });
  },
});

export const rhsSaveNodes = defineOperation({
  name: 'rhs.saveNodes',
  summary: 'reverse hash service: store tree nodes (each hash must equal the Poseidon hash of its children)',
  input: z.strictObject({ nodes: rhsNodesSchema.describe('the nodes, [{hash, children}]') }),
  result: z.object({ status: z.literal('OK'), saved: z.number() }),
  // Content-addressed nodes saved in one store transaction: no exclusive turn, so an issuer whose
  // RHS_URL is its own address (directly or through a proxy) can post its nodes while it issues.
  mutates: 'atomic',
  run: async (ctx, input) => {
    const { saveRhsNodes } = await import('../pbq/rhsService.js');
    return saveRhsNodes(ctx, input.nodes);
  },
});

export const rhsReadNode = defineOperation({
  name: 'rhs.readNode',
  summary: 'reverse hash service: the children of a node hash',
  input: z.strictObject({ hash: z.string().describe('the node hash (hex)') }),
  result: z.object({ node: z.object({ hash: z.string(), children: z.array(z.string()) }), status: z.literal('OK') }),
  mutates: false,
  run: async (ctx, input) => {
    const { readRhsNode } = await import('../pbq/rhsService.js');
    return readRhsNode(ctx, input.hash);
  },
});

/** A plain iden3comm message as the agent reads it (bounded fields; the body is checked by type). */
const plainMessageSchema = z.looseObject({
  id: z.string().min(1).max(256).describe('the message id'),
  typ: z.string().max(256).describe('application/iden3comm-plain-json').optional(),
  type: z.string().min(1).max(256).describe('the protocol message type, e.g. https://iden3-communication.io/revocation/1.0/request-status'),
  thid: z.string().max(256).describe('the thread id (default: the message id)').optional(),
  from: z.string().max(512).describe("the sender's DID").optional(),
  to: z.string().min(1).max(512).describe("the issuer's DID"),
  body: z.unknown().describe('for request-status: {"revocation_nonce": N}'),
});

export const pbqAgent = defineOperation({
  name: 'pbq.agent',
  summary:
    "the issuer's iden3comm agent: answers a plain revocation/1.0/request-status message (a credential with an Iden3commRevocationStatusV1.0 status) with the issuer's roots and the nonce's Merkle proof at the state the chain holds; a JWZ body (application/iden3-zkp-json) is a credentials/1.0/fetch-request, answered with the credential (credentials/1.0/issuance-response)",
  input: plainMessageSchema,
  result: z.looseObject({ id: z.string(), typ: z.string(), type: z.string(), thid: z.string(), from: z.string(), body: z.unknown() }),
  mutates: false,
  run: async (ctx, input) => {
    const { answerAgentMessage } = await import('../pbq/agentService.js');
    return answerAgentMessage(ctx, input as never);
  },
});
