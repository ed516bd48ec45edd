/**
 * Status types at the edge of what vc resolves, with no chain: the credential is a real one signed
 * by a vc issuer (BJJSignature2021, before any publication), with its credentialStatus replaced.
 * - A type vc does not resolve (the credential's, or its issuer's signing key's inside the
 *   BJJSignature2021 proof) is refused with the type and the reason wherever vc meets one: `vc
 *   holder credentials import`, `vc holder prove-submit --credential` and `--id`, before anything is
 *   asked of a chain or a service (the binary runs here with no chain at all).
 * (Iden3commRevocationStatusV1.0, answered by the issuer's agent, vc's and the js-sdk's, both ways,
 * and an agent that does not answer: test/e2e/agentStatus.test.ts.)
 * - The status of the issuer's signing key must name that key's own revocation nonce.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { invokeOperation } from '../../../src/core/operation.js';
import { holderImport } from '../../../src/core/operations/holderOperations.js';
import { pbqProveSubmit } from '../../../src/core/operations/pbqOperations.js';
import { listHeldCredentials } from '../../../src/core/holder/holderStore.js';
import { createHolderIdentity, resolveIssuerDid } from '../../../src/core/pbq/identities.js';
import { credentialJson, prepareItem, signItem } from '../../../src/core/pbq/pbqIssuance.js';
import { pbqCredentialSchema } from '../../../src/core/pbq/pbqSchemas.js';
import { parseInput } from '../../../src/core/validate.js';
import { UnprocessableError } from '../../../src/errors.js';
import { getIden3 } from '../../../src/iden3/wallet.js';
import { jsonError, runVc, tempDir } from '../../helpers.js';
import { holdDirectly } from './support.js';

type Json = Record<string, unknown>;

/** An older iden3 status type (a plain HTTP service per nonce) that vc does not resolve. */
const TYPE = 'SparseMerkleTreeProof';
const REASON = `"${TYPE}" is not a status type vc resolves (Iden3ReverseSparseMerkleTreeProof, Iden3OnchainSparseMerkleTreeProof2023, Iden3commRevocationStatusV1.0), so it cannot tell whether the credential is revoked`;


const tmp = tempDir('vc-status-types-');
const home = path.join(tmp.dir, 'home');
let ctx: Context;
let issued: Json;
/** The issued credential with its status replaced by one of a type vc does not resolve. */
let agentStatus: Json;
/** The issued credential with the status of the issuer's signing key (in its BJJSignature2021) replaced likewise. */
let agentAuthStatus: Json;

/** A request the credential would answer (its type and context), for prove-submit. */
let request: Json;

async function refusal(promise: Promise<unknown>): Promise<Error & { field?: string; exitCode?: number }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { field?: string; exitCode?: number };
  }
  throw new Error('expected a refusal');
}

const file = (name: string, content: unknown): string => {
  const target = path.join(tmp.dir, name);
  writeFileSync(target, JSON.stringify(content));
  return target;
};

beforeAll(async () => {
  ctx = new Context({ config: parseConfig({}, home) });
  const holderDid = (await createHolderIdentity(ctx)).did_String;
  const iden3 = await getIden3(ctx);
  const issuerDid = iden3.modules.core.DID.parse(await resolveIssuerDid(ctx));
  const item = await prepareItem(ctx, iden3, { holderDid });
  issued = credentialJson(await signItem(iden3, issuerDid, item, 4242));
  const status = issued.credentialStatus as Json;
  const context = (issued['@context'] as string[]).at(-1)!;
  request = { id: 7, circuitId: 'credentialAtomicQueryMTPV2OnChain', query: { allowedIssuers: ['*'], type: 'PassportCredential', context, credentialSubject: { birthDate: { $lt: 20010101 } } } };
  agentStatus = { ...issued, credentialStatus: { id: `http://127.0.0.1:9/status/${String(status.revocationNonce)}`, type: TYPE, revocationNonce: status.revocationNonce } };
  const [signature] = issued.proof as Json[];
  const issuerData = signature!.issuerData as Json;
  agentAuthStatus = { ...issued, proof: [{ ...signature, issuerData: { ...issuerData, credentialStatus: { ...(issuerData.credentialStatus as Json), type: TYPE } } }] };
}, 120_000);

afterAll(async () => {
  await ctx?.close();
  tmp.cleanup();
});

describe('an iden3 credential whose status is of a type vc does not resolve', () => {
  it('is a real credential of a vc issuer, whose own status type passes the same check', () => {
    expect((issued.proof as Json[]).map((proof) => proof.type)).toEqual(['BJJSignature2021']);
    expect((issued.credentialStatus as Json).type).toBe('Iden3ReverseSparseMerkleTreeProof');
    expect(() => parseInput(pbqCredentialSchema, issued, 'credential')).not.toThrow();
    // Only the status type differs: that alone is what is refused.
    expect(() => parseInput(pbqCredentialSchema, agentStatus, 'credential')).toThrow(`credential: field credentialStatus.type: ${REASON}`);
  });

  it('is refused by the import with the type and the reason, and nothing is kept', async () => {
    const error = await refusal(invokeOperation(ctx, holderImport, { credential: agentStatus }));
    expect(error.message).toBe(`credential.credentialStatus.type: ${REASON}`);
    expect(error.field).toBe('credential.credentialStatus.type');
    expect(error.exitCode).toBe(2);
    // The signing key's status inside the signature proof, likewise (before the chain is asked anything).
    const auth = await refusal(invokeOperation(ctx, holderImport, { credential: agentAuthStatus }));
    expect(auth).toBeInstanceOf(UnprocessableError);
    expect(auth.message).toBe(`credential.proof[0].issuerData.credentialStatus.type: BJJSignature2021: the status of the issuer's signing key: ${REASON}`);
    expect(listHeldCredentials(ctx)).toEqual([]);
  });

  it('is refused by prove-submit, given or held (by its id), before any proof or chain', async () => {
    const given = await refusal(invokeOperation(ctx, pbqProveSubmit, { verifiableCredential: agentStatus, credentialRequest: request }));
    expect(given.message).toBe(`verifiableCredential.credentialStatus.type: ${REASON}`);
    expect(given.exitCode).toBe(2);
    // One kept before vc refused the type (by an older vc, or written to the store directly).
    const held = holdDirectly(ctx, agentStatus);
    const byId = await refusal(invokeOperation(ctx, pbqProveSubmit, { credentialId: held.id, credentialRequest: request }));
    expect(byId.message).toBe(`the held credential ${held.id}: field credentialStatus.type: ${REASON}`);
    expect(byId.exitCode).toBe(2);
  });

  it('is refused by the binary with one line and exit 2: import, prove-submit --credential and --id, and verifier verify names the kind', async () => {
    const heldId = listHeldCredentials(ctx)[0]!.id;
    await ctx.close();
    const credentialFile = file('agent-status.json', agentStatus);
    const requestFile = file('request.json', request);
    const imported = runVc(['--json', 'holder', 'credentials', 'import', credentialFile], { home });
    expect(imported.status, imported.stderr).toBe(2);
    expect(jsonError(imported.stderr).message).toBe(`${credentialFile}: field credentialStatus.type: ${REASON}`);
    const proved = runVc(['--json', 'holder', 'prove-submit', '--credential', credentialFile, '--request', requestFile], { home });
    expect(proved.status, proved.stderr).toBe(2);
    expect(jsonError(proved.stderr).message).toBe(`--credential ${credentialFile}: field credentialStatus.type: ${REASON}`);
    const provedById = runVc(['--json', 'holder', 'prove-submit', '--id', heldId, '--request', requestFile], { home });
    expect(provedById.status, provedById.stderr).toBe(2);
    expect(jsonError(provedById.stderr).message).toBe(`the held credential ${heldId}: field credentialStatus.type: ${REASON}`);
    const verified = runVc(['--json', 'verifier', 'verify', '--credential', credentialFile], { home });
    expect(verified.status, verified.stderr).toBe(2);
    expect(jsonError(verified.stderr).message).toContain('is an iden3 credential (proof BJJSignature2021)');
  });
});

describe("the status of the issuer's signing key (BJJSignature2021 issuerData.credentialStatus, outside any signature)", () => {
  it("must name that key's own revocation nonce: another nonce, no nonce or no status is refused before the chain is asked anything", async () => {
    const checked = new Context({ config: parseConfig({}, home) });
    try {
      const heldBefore = listHeldCredentials(checked).map((record) => record.id);
      const [signature] = issued.proof as Json[];
      const issuerData = signature!.issuerData as Json;
      const keyStatus = issuerData.credentialStatus as Json;
      const withKeyStatus = (credentialStatus: unknown): Json => ({ ...issued, proof: [{ ...signature, issuerData: { ...issuerData, credentialStatus } }] });
      const nonce = Number(keyStatus.revocationNonce);
      for (const [name, credentialStatus, reason] of [
        ['another nonce', { ...keyStatus, revocationNonce: nonce + 1 }, `names revocation nonce ${nonce + 1}, not the nonce of its auth claim (${nonce})`],
        ['a revoked key\'s nonce', { ...keyStatus, revocationNonce: 392_174_617 }, `names revocation nonce 392174617, not the nonce of its auth claim (${nonce})`],
        ['the nonce as a string', { ...keyStatus, revocationNonce: String(nonce) }, `names revocation nonce "${nonce}", not the nonce of its auth claim (${nonce})`],
        ['no nonce', { id: keyStatus.id, type: keyStatus.type }, `names revocation nonce undefined, not the nonce of its auth claim (${nonce})`],
      ] as const) {
        const error = await refusal(invokeOperation(checked, holderImport, { credential: withKeyStatus(credentialStatus) }));
        expect(error, name).toBeInstanceOf(UnprocessableError);
        expect(error.message, name).toContain(`the status of the issuer's signing key ${reason}`);
      }
      const { credentialStatus: _dropped, ...withoutStatus } = issuerData;
      const missing = await refusal(invokeOperation(checked, holderImport, { credential: { ...issued, proof: [{ ...signature, issuerData: withoutStatus }] } }));
      expect(missing.message).toMatch(/issuerData|credentialStatus/);
      expect(missing.message).not.toMatch(/Cannot read properties/);
      expect(listHeldCredentials(checked).map((record) => record.id)).toEqual(heldBefore);
    } finally {
      await checked.close();
    }
  });
});
