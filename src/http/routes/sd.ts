/**
 * Selective disclosure over HTTP: each route is a thin adapter over src/core/sd.
 * issuer   POST /generate-sd-credentials          {type?, credentialSubject?, expirationDate?} -> credential (spec 2.4)
 * issuer   GET  /bbs-key                          -> the issuer's BBS+ public key (did:key)
 * holder   POST /generate-selective-disclosure-vc {credentialType, selectiveDisclosureKeys, nonce?} -> spec 2.5
 * holder   POST /sd-credentials                   {credential} -> keeps an issuer's BBS+ credential
 * verifier POST /nonce                            -> {nonce, expiresAt}
 * verifier POST /verify-vc                        {vc, requireNonce?} -> {verified, message, checks} (200 either way)
 */
import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../route.js';
import {
  BbsCredentialSchema,
  DiscloseRequestSchema,
  DiscloseResultSchema,
  IssueSdRequestSchema,
  NonceResultSchema,
  StoreSdCredentialRequestSchema,
  VerifyRequestSchema,
  VerifyResultSchema,
} from '../../core/sd/schemas.js';
import { MAX_NONCE_TTL_SECONDS } from '../../core/sd/nonce.js';

/** The selective-disclosure routes of every role. */
export const sdRoutes: RouteDefinition[] = [
  defineRoute({
    role: 'issuer',
    method: 'POST',
    path: '/generate-sd-credentials',
    summary: 'issue a BBS+ signed credential for selective disclosure (spec 2.4); also kept by a holder served from the same wallet',
    body: IssueSdRequestSchema,
    response: BbsCredentialSchema,
    mutating: true,
    handler: async (ctx, { body }) => {
      const { issueSelectiveDisclosureCredential } = await import('../../core/sd/issue.js');
      const credential = await issueSelectiveDisclosureCredential(ctx, {
        type: body.type,
        subject: body.credentialSubject,
        expirationDate: body.expirationDate,
        subjectSource: body.credentialSubject === undefined ? undefined : 'request body: credentialSubject',
      });
      return { body: credential };
    },
  }),
  defineRoute({
    role: 'issuer',
    method: 'GET',
    path: '/bbs-key',
    summary: "the issuer's BBS+ public key as a did:key (never the seed phrase)",
    response: z.object({ did: z.string(), verificationMethod: z.string(), type: z.string(), publicKeyBase58: z.string(), seedSource: z.string() }),
    handler: async (ctx) => {
      const { describeIssuerBlsKey } = await import('../../core/sd/issuerKey.js');
      return { body: await describeIssuerBlsKey(ctx) };
    },
  }),
  defineRoute({
    role: 'holder',
    method: 'POST',
    path: '/generate-selective-disclosure-vc',
    summary: "reveal only the requested credentialSubject fields of the holder's credential of a type (spec 2.5)",
    body: DiscloseRequestSchema,
    response: DiscloseResultSchema,
    handler: async (ctx, { body }) => {
      const { deriveSelectiveDisclosure } = await import('../../core/sd/disclose.js');
      const result = await deriveSelectiveDisclosure(ctx, { type: body.credentialType, keys: body.selectiveDisclosureKeys, nonce: body.nonce });
      return { body: result };
    },
  }),
  defineRoute({
    role: 'holder',
    method: 'POST',
    path: '/sd-credentials',
    summary: "keep an issuer's BBS+ credential for later disclosure (its signature is checked first)",
    body: StoreSdCredentialRequestSchema,
    response: z.object({ stored: z.literal(true), type: z.string(), id: z.string().optional(), issuer: z.string() }),
    mutating: true,
    handler: async (ctx, { body }) => {
      const { storeSelectiveDisclosureCredential } = await import('../../core/sd/disclose.js');
      return { body: await storeSelectiveDisclosureCredential(ctx, { credential: body.credential, source: 'request body: credential' }) };
    },
  }),
  defineRoute({
    role: 'verifier',
    method: 'POST',
    path: '/nonce',
    summary: 'issue a one-time nonce for a selective-disclosure proof',
    body: z.strictObject({ ttlSeconds: z.number().int().min(1).max(MAX_NONCE_TTL_SECONDS).optional() }),
    response: NonceResultSchema,
    mutating: true,
    handler: async (ctx, { body }) => {
      const { createVerifierNonce } = await import('../../core/sd/verify.js');
      return { body: createVerifierNonce(ctx, body.ttlSeconds === undefined ? {} : { ttlSeconds: body.ttlSeconds }) };
    },
  }),
  defineRoute({
    role: 'verifier',
    method: 'POST',
    path: '/verify-vc',
    summary: 'verify a selectively disclosed credential; verified is false with a reason when any check fails (requireNonce, or VC_REQUIRE_NONCE on the server: the nonce must be one this verifier issued)',
    body: VerifyRequestSchema,
    response: VerifyResultSchema,
    handler: async (ctx, { body }) => {
      const { verifySelectiveDisclosure } = await import('../../core/sd/verify.js');
      return { body: await verifySelectiveDisclosure(ctx, { vc: body.vc, requireNonce: body.requireNonce === true }) };
    },
  }),
];
