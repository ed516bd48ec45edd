/**
 * Proof-by-query behaviours, written once and run by every driver (in process and over HTTP) on
 * the embedded chain: DIDs (spec 2.2), the request (2.1), issuance (2.3), prove-submit with the
 * {"<id>": true} mapping, revocation, and the errors of invalid or impossible requests.
 */
import { describe, expect, it } from 'vitest';
import { expectCallError, type DidObject, type Driver, type Json } from './driver.js';

/** Issuance publishes state and proving runs snarkjs: minutes on a busy 2-core machine. */
const LONG = 900_000;

const DID_OBJECT_KEYS = ['fragment', 'id', 'idStrings', 'method', 'params', 'path', 'pathSegments', 'query'];

function expectDidObject(did: DidObject): void {
  expect(Object.keys(did).sort()).toEqual(DID_OBJECT_KEYS);
  expect(did.method).toBe('polygonid');
  expect(did.id).toMatch(/^polygon:local:[1-9A-HJ-NP-Za-km-z]{40,}$/);
  expect(did.idStrings).toEqual(did.id.split(':'));
  expect({ params: did.params, path: did.path, pathSegments: did.pathSegments, query: did.query, fragment: did.fragment }).toEqual({
    params: [],
    path: '',
    pathSegments: [],
    query: '',
    fragment: '',
  });
}

/** What the suite learned, for later checks of the same file (e.g. raw HTTP status tests). */
export interface ProofByQueryState {
  /** Revocation nonce of a credential this suite revoked. */
  revokedNonce?: number;
}

/** Registers the proof-by-query behaviours for the driver `driver()` returns. */
export function describeProofByQueryBehaviours(driver: () => Driver): ProofByQueryState {
  const state: ProofByQueryState = {};
  describe('proof by query (iden3, embedded chain)', () => {
    let holderDid: string;
    let issuerDid: string;
    let request: Json & { id: number };
    let credential: Json;

    it('creates the holder DID (spec 2.2) and returns the same one when asked again', async () => {
      const first = await driver().createHolderDid();
      // The spec's record, and whether this call created the DID (additive).
      expect(Object.keys(first).sort()).toEqual(['created', 'did', 'did_String', 'message']);
      expect(first.message).toBe('did successfully created');
      expect(typeof first.created).toBe('boolean');
      expectDidObject(first.did);
      expect(first.did_String).toBe(`did:${first.did.method}:${first.did.id}`);
      // The spec's message stays; created says it was reused.
      expect(await driver().createHolderDid()).toEqual({ ...first, created: false });
      holderDid = first.did_String;
    }, LONG);

    it('creates the issuer DID in the payload form (spec 2.2)', async () => {
      const issuer = await driver().createIssuerDid();
      // The spec's {payload}, with did_String as the holder's and created (additive).
      expect(Object.keys(issuer)).toEqual(['payload', 'did_String', 'created']);
      expectDidObject(issuer.payload);
      issuerDid = `did:${issuer.payload.method}:${issuer.payload.id}`;
      expect(issuer.did_String).toBe(issuerDid);
      expect(issuerDid).not.toBe(holderDid);
      expect((await driver().createIssuerDid()).payload).toEqual(issuer.payload);
    }, LONG);

    it('creates a credential request (spec 2.1) registered on the verifier contract', async () => {
      request = await driver().createCredentialRequest();
      expect(Number.isSafeInteger(request.id) && request.id > 0).toBe(true);
      expect(request).toMatchObject({
        circuitId: 'credentialAtomicQueryMTPV2OnChain',
        query: { allowedIssuers: ['*'], type: 'PassportCredential', credentialSubject: { birthDate: { $lt: 20010101 } } },
      });
      expect(() => new URL((request.query as Json).context as string)).not.toThrow();
    }, LONG);

    it('issues a PassportCredential for the holder DID (spec 2.3)', async () => {
      const issued = await driver().issuePbqCredential({ did: holderDid });
      expect(typeof issued.message).toBe('string');
      credential = issued.credential;
      expect(credential.id).toMatch(/^urn:(uuid:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect((credential['@context'] as unknown[]).every((c) => typeof c === 'string')).toBe(true);
      expect(credential.type).toEqual(expect.arrayContaining(['VerifiableCredential', 'PassportCredential']));
      expect(credential.issuer).toBe(issuerDid);
      expect(credential.issuanceDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const subject = credential.credentialSubject as Json;
      expect(Object.keys(subject).sort()).toEqual(
        ['birthDate', 'customerReference', 'expiryDate', 'id', 'name', 'nationality', 'passportNumber', 'publicAddress', 'type'].sort(),
      );
      expect(subject).toMatchObject({ id: holderDid, type: 'PassportCredential' });
      expect(subject.nationality).toMatch(/^[A-Z]{3}$/);
      expect(Number.isInteger(subject.birthDate)).toBe(true);
      expect(credential.credentialSchema).toMatchObject({ type: 'JsonSchema2023' });
      const status = credential.credentialStatus as Json;
      expect(status.type).toBe('Iden3ReverseSparseMerkleTreeProof');
      expect(new URL(status.id as string).searchParams.get('state')).toMatch(/^[0-9a-f]{64}$/);
      expect(Number.isInteger(status.revocationNonce)).toBe(true);
      const proofs = credential.proof as Json[];
      expect(proofs.map((p) => p.type)).toEqual(['BJJSignature2021', 'Iden3SparseMerkleTreeProof']);
      const mtpIssuer = proofs[1]!.issuerData as Json;
      expect(mtpIssuer.id).toBe(issuerDid);
      expect((mtpIssuer.state as Json).txId).toMatch(/^0x[0-9a-f]{64}$/);
      expect(((proofs[1]!.mtp as Json).siblings as unknown[]).every((s) => typeof s === 'string' && /^\d+$/.test(s))).toBe(true);
    }, LONG);

    it('refuses a proof the credential cannot give, before proving, with the reason', async () => {
      const otherType = { ...request, query: { ...(request.query as Json), type: 'DriversLicenceCredential' } };
      await expectCallError(driver().proveSubmit({ verifiableCredential: credential, credentialRequest: otherType }), {
        status: 422,
        code: 'unprocessable',
        field: 'credentialRequest.query.type',
      });
      const unregistered = { ...request, id: request.id === 1 ? 2 : request.id - 1 };
      await expectCallError(driver().proveSubmit({ verifiableCredential: credential, credentialRequest: unregistered }), {
        status: 404,
        code: 'not_found',
        field: 'credentialRequest.id',
      });
    }, LONG);

    it('proves the request over the credential and submits it: the mapping {"<id>": true}', async () => {
      const proved = await driver().proveSubmit({ verifiableCredential: credential, credentialRequest: request });
      expect(proved[String(request.id)]).toBe(true);
      expect(proved.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      // The contract now refuses a second proof of the same request from the same address.
      await expectCallError(driver().proveSubmit({ verifiableCredential: credential, credentialRequest: request }), {
        status: 422,
        code: 'verification_failed',
        message: /ProofAlreadyVerified/,
      });
    }, LONG);

    it('revokes the credential once: a second revocation conflicts, an unknown nonce is not found', async () => {
      const nonce = (credential.credentialStatus as Json).revocationNonce as number;
      const revoked = await driver().revokePbqCredential({ nonce });
      expect(revoked).toMatchObject({ issuer: issuerDid, nonce });
      expect(revoked.txId).toMatch(/^0x[0-9a-f]{64}$/);
      state.revokedNonce = nonce;
      await expectCallError(driver().revokePbqCredential({ nonce }), { status: 409, code: 'conflict', field: 'nonce', message: /already revoked/ });
      await expectCallError(driver().revokePbqCredential({ nonce: nonce + 1 }), { status: 404, code: 'not_found', field: 'nonce' });
      // A revoked credential proves nothing any more, whatever the request.
      const fresh = await driver().createCredentialRequest();
      await expectCallError(driver().proveSubmit({ verifiableCredential: credential, credentialRequest: fresh }), {
        status: 422,
        code: 'verification_failed',
        field: 'verifiableCredential.credentialStatus',
        message: /revoked/,
      });
    }, LONG);

    describe('invalid inputs: the same error code, field and status in every driver', () => {
      it('400 for a holder DID that is not a DID', async () => {
        await expectCallError(driver().issuePbqCredential({ did: 'not-a-did' }), { status: 400, code: 'invalid_input', field: 'did' });
      });

      it('400 for a request of another circuit, and for a revocation nonce that is not an integer', async () => {
        await expectCallError(
          driver().proveSubmit({ verifiableCredential: credential, credentialRequest: { ...request, circuitId: 'credentialAtomicQuerySigV2' } }),
          { status: 400, code: 'invalid_input', field: 'credentialRequest.circuitId' },
        );
        await expectCallError(driver().revokePbqCredential({ nonce: -1 }), { status: 400, code: 'invalid_input', field: 'nonce' });
      });
    });
  });
  return state;
}
