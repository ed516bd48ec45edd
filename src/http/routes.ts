/**
 * Every route of `vc serve`, one line each: role, method, path and the core operation behind it.
 */
import { chain, circuits, holder, iden3comm, pbq, sd, status, system, vcapi, vp } from '../core/operations/index.js';
import { ROLES, route, type HttpRoute } from './route.js';

// `idempotent`: the routes that issue a credential or send a transaction take an Idempotency-Key.
export const ROUTES: readonly HttpRoute[] = [
  // Every role: readiness (503 when not ready, for load balancers), the chain to share, the circuits.
  ...ROLES.map((role) => route(role, 'GET', '/healthz', system.health, { fixed: { role }, status: (result) => ((result as { status: string }).status === 'ok' ? 200 : 503), negativeStatus: 503 })),
  ...ROLES.map((role) => route(role, 'GET', '/circuits', circuits.circuitsStatus)),
  ...ROLES.map((role) => route(role, 'GET', '/chain-env', chain.chainEnv)),
  // Issuer.
  route('issuer', 'POST', '/did', pbq.pbqIssuerDid),
  route('issuer', 'POST', '/generate-pbq-credentials', pbq.pbqIssue, { omit: ['context', 'schema'], idempotent: true }),
  route('issuer', 'POST', '/revoke', pbq.pbqRevoke, { idempotent: true }),
  route('issuer', 'POST', '/publish', pbq.pbqPublish, { idempotent: true }),
  route('issuer', 'GET', '/issued-credentials', pbq.pbqIssued),
  route('issuer', 'GET', '/issued-credentials/:id', pbq.pbqIssued),
  route('issuer', 'POST', '/generate-sd-credentials', sd.sdIssue, { pooled: true }),
  route('issuer', 'POST', '/generate-sd-credentials/bbs-2023', sd.sdIssueBbs2023, { pooled: true }),
  // The W3C VC-API routes of bbs-2023 (what the W3C conformance suite drives).
  route('issuer', 'POST', '/credentials/issue', vcapi.vcapiIssue, { status: 201, pooled: true }),
  route('issuer', 'GET', '/bbs-key', sd.sdIssuerKey, { omit: ['showSecret'] }),
  // W3C Bitstring Status Lists: the signed lists (open without VC_API_TOKEN: every verifier reads them), and the VC-API status change.
  route('issuer', 'GET', '/status-lists/:id', status.statusList),
  route('issuer', 'POST', '/credentials/status', status.statusUpdate, { pooled: true }),
  route('issuer', 'POST', '/node', pbq.rhsSaveNodes, { bodyField: 'nodes' }),
  route('issuer', 'GET', '/node/:hash', pbq.rhsReadNode),
  // The iden3comm agent (open without VC_API_TOKEN, as the reverse hash service's reads: holders ask it for statuses).
  route('issuer', 'POST', '/agent', pbq.pbqAgent, { textAlternative: { field: 'jwz', operation: iden3comm.iden3commAgentFetch } }),
  // Holder.
  route('holder', 'POST', '/did', pbq.pbqHolderDid),
  route('holder', 'POST', '/generate-submit-proof', pbq.pbqProveSubmit, { idempotent: true }),
  // iden3comm: the answer to an authorization request (a request_uri and --post reach this machine only: no allowRemote over HTTP).
  route('holder', 'POST', '/auth-responses', iden3comm.iden3commRespond, {
    omit: ['allowRemote'],
    status: (result) => {
      const posted = (result as { posted?: { status: number } }).posted;
      return posted === undefined || (posted.status >= 200 && posted.status < 300) ? 200 : 502;
    },
    negativeStatus: 502,
  }),
  route('holder', 'POST', '/generate-selective-disclosure-vc', sd.sdDisclose, { omit: ['credential'], pooled: true }),
  route('holder', 'POST', '/sd-credentials', sd.sdImport, { pooled: true }),
  route('holder', 'POST', '/credentials/derive', vcapi.vcapiDerive, { status: 201, pooled: true }),
  // Presentations: the holder's did:key, and a VC-API presentation signed with it.
  route('holder', 'GET', '/did-key', vp.vpHolderKey),
  route('holder', 'POST', '/presentations', vcapi.vcapiProve, { status: 201, pooled: true }),
  // The holder's credential store (the VC-API's holder names: GET and DELETE /credentials/{id}).
  route('holder', 'GET', '/credentials', holder.holderList),
  route('holder', 'POST', '/credentials', holder.holderImport, { status: 201, pooled: true }),
  route('holder', 'GET', '/credentials/:id', holder.holderShow),
  route('holder', 'DELETE', '/credentials/:id', holder.holderDelete),
  // Verifier.
  route('verifier', 'POST', '/credential-requests', pbq.pbqRequest, { status: 201, idempotent: true }),
  route('verifier', 'GET', '/request-status', pbq.pbqRequestStatus),
  route('verifier', 'POST', '/nonce', sd.sdNonce),
  // iden3comm sessions: a request for Privado ID / js-sdk wallets, what its request_uri names, the wallet's JWZ answer, the outcome.
  route('verifier', 'POST', '/auth-requests', iden3comm.iden3commAuthRequest, { omit: ['qr', 'link'], status: 201 }),
  route('verifier', 'GET', '/auth-requests/:id', iden3comm.iden3commSessionRequest),
  route('verifier', 'GET', '/auth-requests/:id/status', iden3comm.iden3commSessionStatus),
  // On chain: a contract-invoke-request for registered V3 requests (the wallet submits the proofs itself).
  route('verifier', 'POST', '/contract-requests', iden3comm.iden3commContractRequest, { omit: ['qr', 'link'], status: 201 }),
  route('verifier', 'POST', '/callback', iden3comm.iden3commCallback, { textBody: 'jwz', status: (result) => ((result as { verified: boolean }).verified ? 200 : 422), negativeStatus: 422 }),
  // A status list given in the body would be the holder's choice of list (an old one, before the revocation).
  route('verifier', 'POST', '/verify-vc', sd.sdVerify, { omit: ['statusList'], pooled: true }),
  route('verifier', 'POST', '/credentials/verify', vcapi.vcapiVerify, { status: (result) => ((result as { verified: boolean }).verified ? 200 : 422), negativeStatus: 422, pooled: true }),
  route('verifier', 'POST', '/presentations/verify', vcapi.vcapiVerifyPresentation, { status: (result) => ((result as { verified: boolean }).verified ? 200 : 422), negativeStatus: 422, pooled: true }),
];
