/**
 * Proof by query over HTTP: thin adapters over src/core/pbq.
 * holder   POST /did                        {new?} -> spec 2.2 {message, did, did_String} (the holder's global DID)
 * holder   POST /generate-submit-proof      {verifiableCredential, credentialRequest} -> {"<requestId>": true, txHash, ...}
 * issuer   POST /did                        -> spec 2.2 {payload}
 * issuer   POST /generate-pbq-credentials   {did, type?, subject?} -> spec 2.3 {message, credential}
 * issuer   POST /revoke                     {nonce} -> {message, issuer, nonce, txId, state}
 * issuer   GET  /issued-credentials[/:id]   the issued credentials (an interrupted issuance completed first)
 * verifier POST /credential-requests        {type?, context?, field?, op?, value?, allowedIssuers?} -> spec 2.1 request
 * verifier GET  /request-status?request=ID&address=0x...  -> {requestId, address, isVerified, ...}
 * issuer   POST /node, GET /node/:hash      the embedded reverse hash service (rhs.ts)
 */
import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../route.js';
import {
  credentialRequestSchema,
  holderDidOptionsSchema,
  issueBodySchema,
  proveSubmitBodySchema,
  requestOptionsSchema,
  requestStatusSchema,
  revokeBodySchema,
} from '../../core/pbq/schemas.js';
import { parseInput } from '../../core/validate.js';
import { rhsRoutes } from './rhs.js';

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

/** The proof-by-query routes of every role, with the embedded reverse hash service of the issuer. */
export const pbqRoutes: RouteDefinition[] = [
  ...rhsRoutes,
  defineRoute({
    role: 'holder',
    method: 'POST',
    path: '/did',
    summary: "create the holder's iden3 DID (spec 2.2); returns the stored one when it exists, {new: true} makes another the default",
    body: holderDidOptionsSchema,
    response: z.object({ message: z.string(), did: didObjectSchema, did_String: z.string() }),
    mutating: true,
    handler: async (ctx, { body }) => {
      const { createHolderIdentity } = await import('../../core/pbq/did.js');
      return { body: await createHolderIdentity(ctx, { new: body.new }) };
    },
  }),
  defineRoute({
    role: 'holder',
    method: 'POST',
    path: '/generate-submit-proof',
    summary: 'prove the request query over the credential (credentialAtomicQueryMTPV2OnChain) and submit it to the UniversalVerifier',
    body: proveSubmitBodySchema,
    response: z.record(z.string(), z.unknown()),
    mutating: true,
    handler: async (ctx, { body }) => {
      const { proveAndSubmit } = await import('../../core/pbq/prove.js');
      return { body: await proveAndSubmit(ctx, { credential: body.verifiableCredential, request: body.credentialRequest }) };
    },
  }),
  defineRoute({
    role: 'issuer',
    method: 'POST',
    path: '/did',
    summary: "create (or return) the issuer's iden3 DID (spec 2.2, payload form); ISSUER_DID selects an existing one",
    body: z.object({}),
    response: z.object({ payload: didObjectSchema }),
    mutating: true,
    handler: async (ctx) => {
      const { createIssuerIdentity } = await import('../../core/pbq/did.js');
      return { body: await createIssuerIdentity(ctx) };
    },
  }),
  defineRoute({
    role: 'issuer',
    method: 'POST',
    path: '/generate-pbq-credentials',
    summary: 'issue an iden3 credential for the holder DID (spec 2.3): BJJ signature, state published on chain, MTP proof',
    body: issueBodySchema,
    response: z.object({ message: z.string(), credential: z.record(z.string(), z.unknown()) }),
    mutating: true,
    handler: async (ctx, { body }) => {
      const { issuePbqCredential } = await import('../../core/pbq/issue.js');
      const options = { holderDid: body.did, ...(body.type === undefined ? {} : { type: body.type }), ...(body.subject === undefined ? {} : { subject: body.subject }) };
      return { body: await issuePbqCredential(ctx, options) };
    },
  }),
  defineRoute({
    role: 'issuer',
    method: 'POST',
    path: '/revoke',
    summary: 'revoke an iden3 credential by revocation nonce and publish the new state',
    body: revokeBodySchema,
    mutating: true,
    handler: async (ctx, { body }) => {
      const { revokePbqCredential } = await import('../../core/pbq/issue.js');
      return { body: await revokePbqCredential(ctx, body) };
    },
  }),
  defineRoute({
    role: 'issuer',
    method: 'GET',
    path: '/issued-credentials',
    summary: 'the iden3 credentials this issuer issued (an interrupted issuance is completed first)',
    mutating: true,
    handler: async (ctx) => {
      const { listIssuedCredentials } = await import('../../core/pbq/issue.js');
      return { body: await listIssuedCredentials(ctx) };
    },
  }),
  defineRoute({
    role: 'issuer',
    method: 'GET',
    path: '/issued-credentials/:id',
    summary: 'one iden3 credential this issuer issued, with its proofs',
    mutating: true,
    handler: async (ctx, { params }) => {
      const { listIssuedCredentials } = await import('../../core/pbq/issue.js');
      return { body: await listIssuedCredentials(ctx, { id: params.id }) };
    },
  }),
  defineRoute({
    role: 'verifier',
    method: 'POST',
    path: '/credential-requests',
    summary: 'create a credential request (spec 2.1) and register it on the UniversalVerifier',
    body: requestOptionsSchema,
    response: credentialRequestSchema,
    mutating: true,
    handler: async (ctx, { body }) => {
      const { createCredentialRequest } = await import('../../core/pbq/request.js');
      const options = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
      return { status: 201, body: await createCredentialRequest(ctx, options) };
    },
  }),
  defineRoute({
    role: 'verifier',
    method: 'GET',
    path: '/request-status',
    summary: 'whether an address has a verified proof for a request (read from the UniversalVerifier)',
    handler: async (ctx, { query }) => {
      const { readRequestStatus } = await import('../../core/pbq/request.js');
      return { body: await readRequestStatus(ctx, parseInput(requestStatusSchema, query, 'query string')) };
    },
  }),
];
