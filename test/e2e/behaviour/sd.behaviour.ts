/**
 * Selective-disclosure behaviours, written once and run by every driver (in process, over HTTP
 * and through the binary): issue -> disclose -> verify, the rejections a verifier must report
 * with a reason, and the errors of invalid inputs, which must carry the same code, field and
 * status in all three.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectCallError, type Driver, type Json, type VerifyResult } from './driver.js';
import { ISSUER_DID, SUBJECT, issueForeignCredential } from './setup.js';

function failedCheck(result: VerifyResult): { id: string; reason?: string } {
  expect(result.verified).toBe(false);
  const failed = result.checks.find((check) => !check.valid);
  expect(failed, JSON.stringify(result)).toBeDefined();
  expect(failed!.reason, 'a rejection names its reason').toMatch(/\S/);
  expect(result.message).toBe(`verification failed: ${failed!.reason}`);
  return failed!;
}

/** Registers the selective-disclosure behaviours for the driver `driver()` returns. */
export function describeSelectiveDisclosureBehaviours(driver: () => Driver, scratchDir: () => string): void {
  describe('selective disclosure (BBS+)', () => {
    let issued: Json;
    /** SUBJECT for the holder's own DID: the issuer of the same wallet issues it, its holder keeps it. */
    let subject: Json;

    beforeAll(async () => {
      subject = { ...SUBJECT, id: (await driver().createHolderDid()).did_String };
      issued = await driver().issueSdCredential({ type: 'PassportCredential', credentialSubject: subject });
    });

    it('issues a BBS+ signed PassportCredential (spec 2.4, 2.6)', () => {
      expect(issued.type).toEqual(['VerifiableCredential', 'PassportCredential']);
      expect(issued.issuer).toBe(ISSUER_DID);
      expect(issued.credentialSubject).toEqual(subject);
      expect(new Date(issued.issuanceDate as string).toISOString()).toBe(issued.issuanceDate);
      const proof = issued.proof as Json;
      expect(proof).toMatchObject({ type: 'BbsBlsSignature2020', proofPurpose: 'assertionMethod' });
      expect(proof.verificationMethod).toBe(`${ISSUER_DID}#${ISSUER_DID.slice('did:key:'.length)}`);
      expect(Buffer.from(proof.proofValue as string, 'base64').length).toBeGreaterThan(100);
      expect(proof.nonce).toBeUndefined();
    });

    it('discloses exactly id, name and nationality, and the verifier accepts it', async () => {
      const disclosed = await driver().discloseSd({ credentialType: 'PassportCredential', selectiveDisclosureKeys: ['id', 'name', 'nationality'] });
      expect(disclosed.message).toBe('proof successfully generated and submitted');
      const vc = disclosed.vc;
      expect(vc.credentialSubject).toEqual({ id: subject.id, name: subject.name, nationality: subject.nationality });
      expect(vc.issuer).toBe(ISSUER_DID);
      expect(vc.type).toEqual(['VerifiableCredential', 'PassportCredential']);
      expect(vc.id).toBe(issued.id);
      const proof = vc.proof as Json;
      expect(proof.type).toBe('BbsBlsSignatureProof2020');
      expect(typeof proof.nonce).toBe('string');
      // Nothing hidden leaks anywhere in the derived document.
      const text = JSON.stringify(vc);
      for (const hidden of ['passportNumber', 'birthDate', 'customerReference', 'expiryDate', 'publicAddress']) {
        expect(text).not.toContain(hidden);
        expect(text).not.toContain(String(subject[hidden]));
      }

      const verified = await driver().verifyVc({ vc });
      expect(verified).toMatchObject({ verified: true, message: 'user has been verified successfully' });
      expect(verified.checks.map((check) => check.id)).toEqual(['proof-type', 'context', 'shape', 'data-model', 'terms', 'proof', 'issuer', 'trusted-issuer', 'validity', 'nonce']);
      expect(verified.checks.every((check) => check.valid)).toBe(true);
    });

    it('ignores requested keys the credential lacks (spec rule 4)', async () => {
      const disclosed = await driver().discloseSd({ credentialType: 'PassportCredential', selectiveDisclosureKeys: ['name', 'shoeSize'] });
      expect(disclosed.vc.credentialSubject).toEqual({ id: subject.id, name: subject.name });
      expect((await driver().verifyVc({ vc: disclosed.vc })).verified).toBe(true);
    });

    it('rejects a tampered value, naming the failed proof', async () => {
      const { vc } = await driver().discloseSd({ credentialType: 'PassportCredential', selectiveDisclosureKeys: ['id', 'nationality'] });
      const tampered = { ...vc, credentialSubject: { ...(vc.credentialSubject as Json), nationality: 'NLD' } };
      const result = await driver().verifyVc({ vc: tampered });
      expect(failedCheck(result).id).toBe('proof');
      // The untouched original still verifies: the rejection is about the change.
      expect((await driver().verifyVc({ vc })).verified).toBe(true);
    });

    it('binds the proof to a verifier nonce and rejects its replay', async () => {
      const { nonce, expiresAt } = await driver().createNonce();
      expect(Buffer.from(nonce, "base64").length).toBe(41);
      expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
      const { vc } = await driver().discloseSd({ credentialType: 'PassportCredential', selectiveDisclosureKeys: ['id', 'name'], nonce });
      expect((vc.proof as Json).nonce).toBe(nonce);
      expect((await driver().verifyVc({ vc })).verified).toBe(true);
      const replay = failedCheck(await driver().verifyVc({ vc }));
      expect(replay.id).toBe('nonce');
      expect(replay.reason).toMatch(/already used/);
    });

    it('rejects a valid proof from an issuer the verifier does not trust', async () => {
      const foreign = await issueForeignCredential(scratchDir(), subject);
      expect(foreign.issuer).not.toBe(ISSUER_DID);
      const kept = await driver().storeSdCredential({ credential: foreign });
      try {
        expect(kept).toMatchObject({ stored: true, type: 'PassportCredential', issuer: foreign.issuer });
        const { vc } = await driver().discloseSd({ credentialType: 'PassportCredential', selectiveDisclosureKeys: ['id', 'name'] });
        const result = await driver().verifyVc({ vc });
        const failed = failedCheck(result);
        expect(failed.id).toBe('trusted-issuer');
        expect(failed.reason).toContain(String(foreign.issuer));
        // The signature itself is fine: only trust is missing.
        expect(result.checks.find((check) => check.id === 'proof')?.valid).toBe(true);
      } finally {
        // The holder keeps both side by side; the foreign one goes, and the first is the newest again.
        expect(await driver().deleteHeldCredential({ id: kept.id })).toMatchObject({ deleted: true, id: kept.id, issuer: foreign.issuer });
      }
      expect((await driver().listHeldCredentials({ type: 'PassportCredential' })).credentials.map((entry) => entry.id)).toEqual([issued.id]);
    });

    it("keeps several credentials of a type apart, each by its id: the type alone takes the newest, credentialId any; one for another holder is not kept", async () => {
      const second = await driver().issueSdCredential({ type: 'PassportCredential', credentialSubject: { ...subject, name: 'Ada King' } });
      // Issued by the same wallet for another holder: never the holder's (it kept nothing of it).
      await driver().issueSdCredential({ type: 'PassportCredential', credentialSubject: { ...subject, id: 'did:example:bob', name: 'Bob' } });
      try {
        const held = (await driver().listHeldCredentials({ type: 'PassportCredential' })).credentials;
        expect(held.map((entry) => [entry.id, entry.subject, entry.kind])).toEqual([
          [second.id, subject.id, 'bbs2020'],
          [issued.id, subject.id, 'bbs2020'],
        ]);
        const newest = await driver().discloseSd({ credentialType: 'PassportCredential', selectiveDisclosureKeys: ['name'] });
        expect(newest.vc.credentialSubject).toEqual({ id: subject.id, name: 'Ada King' });
        const first = await driver().discloseSd({ credentialId: issued.id, selectiveDisclosureKeys: ['name'] });
        expect(first.vc.credentialSubject).toEqual({ id: subject.id, name: subject.name });
        expect((await driver().verifyVc({ vc: first.vc })).verified).toBe(true);
      } finally {
        expect(await driver().deleteHeldCredential({ id: second.id })).toMatchObject({ deleted: true, id: second.id });
      }
      await expectCallError(driver().deleteHeldCredential({ id: second.id }), { status: 404, code: 'not_found', field: 'id' });
      await expectCallError(driver().discloseSd({ credentialId: second.id, selectiveDisclosureKeys: ['name'] }), { status: 404, code: 'not_found', field: 'credentialId' });
      expect((await driver().listHeldCredentials({ type: 'PassportCredential' })).credentials.map((entry) => entry.id)).toEqual([issued.id]);
    });

    describe('invalid inputs: the same error code, field and status in every driver', () => {
      it('404 not_found for a credential type the holder does not have', async () => {
        await expectCallError(driver().discloseSd({ credentialType: 'DriversLicenceCredential', selectiveDisclosureKeys: ['name'] }), {
          status: 404,
          code: 'not_found',
          field: 'credentialType',
          message: /no DriversLicenceCredential credential/,
        });
      });

      it('400 invalid_input for malformed disclosure requests', async () => {
        await expectCallError(driver().discloseSd({ credentialType: 'PassportCredential', selectiveDisclosureKeys: [] }), {
          status: 400,
          code: 'invalid_input',
          field: 'selectiveDisclosureKeys',
        });
        await expectCallError(driver().discloseSd({ credentialType: 'not a type', selectiveDisclosureKeys: ['name'] }), {
          status: 400,
          code: 'invalid_input',
          field: 'credentialType',
        });
        // A command line cannot give a string where a list goes: --keys is always a list.
        if (driver().kind !== 'cli') {
          await expectCallError(driver().discloseSd({ credentialType: 'PassportCredential', selectiveDisclosureKeys: 'name' }), {
            status: 400,
            code: 'invalid_input',
            field: 'selectiveDisclosureKeys',
          });
        }
        await expectCallError(driver().discloseSd({ credentialType: 'PassportCredential', selectiveDisclosureKeys: ['name'], nonce: 'not base64!' }), {
          status: 400,
          code: 'invalid_input',
          field: 'nonce',
        });
      });

      it('400 for a subject field of the wrong form, naming the field', async () => {
        await expectCallError(driver().issueSdCredential({ credentialSubject: { ...SUBJECT, nationality: 'Dutch' } }), {
          status: 400,
          code: 'invalid_input',
          field: 'credentialSubject.nationality',
          message: /three-letter/,
        });
      });

      it('422 for a subject field no context defines, 404 for a type without a sample subject', async () => {
        await expectCallError(driver().issueSdCredential({ credentialSubject: { ...SUBJECT, shoeSize: 44 } }), {
          status: 422,
          code: 'unprocessable',
          field: 'credentialSubject',
          message: /shoeSize/,
        });
        await expectCallError(driver().issueSdCredential({ type: 'DriversLicenceCredential' }), { status: 404, code: 'not_found', field: 'credentialSubject' });
      });

      it('400 for a verify request without a credential object', async () => {
        await expectCallError(driver().verifyVc({ vc: 'eyJhbGciOi' }), { status: 400, code: 'invalid_input', field: 'vc' });
      });

      it('422 when the holder is given a credential whose signature does not verify', async () => {
        const forged = { ...issued, credentialSubject: { ...(issued.credentialSubject as Json), name: 'Mallory' } };
        await expectCallError(driver().storeSdCredential({ credential: forged }), { status: 422, code: 'unprocessable', field: 'credential.proof' });
      });
    });
  });
}
