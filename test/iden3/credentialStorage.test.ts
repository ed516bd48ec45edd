/**
 * vc's credential storage answers the js-sdk's auth key query (getAllAuthBJJCredentials: type
 * AuthBJJCredential, allowed issuers) from the store's index, with exactly what the js-sdk's own
 * scan of every credential gives, in the same order, among credentials built to confuse an index:
 * another issuer's, an issuer given as an object, the type named elsewhere than in `type`, the type
 * as a string; every other query is the js-sdk's scan.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { createHolderIdentity, createIssuerIdentity } from '../../src/core/pbq/identities.js';
import { CREDENTIALS_NS, StoreDataSource } from '../../src/iden3/storage.js';
import { getIden3 } from '../../src/iden3/wallet.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir('vc-credential-storage-');
afterAll(() => tmp.cleanup());

type Json = Record<string, unknown>;

describe('credentialStorage', () => {
  it('gives the js-sdk’s own answer to the auth key query, from the index, and scans for every other query', async () => {
    const ctx = new Context({ config: parseConfig({}, `${tmp.dir}/home`) });
    try {
      const holder = (await createHolderIdentity(ctx)).did_String;
      const issuer = (await createIssuerIdentity(ctx)).did_String;
      const iden3 = await getIden3(ctx);
      const { sdk } = iden3.modules;
      const stored = ctx.store.list<Json>(CREDENTIALS_NS).map((record) => record.value);
      const authOf = (did: string): Json => stored.find((c) => c.issuer === did && (c.type as string[]).includes('AuthBJJCredential'))!;
      expect(authOf(issuer)).toBeDefined();
      expect(authOf(holder)).toBeDefined();
      const variant = (base: Json, id: string, change: Json): void => ctx.store.put(CREDENTIALS_NS, id, { ...base, id, ...change });
      // A second auth key of the issuer (sorted before and after its first), and decoys.
      variant(authOf(issuer), 'urn:uuid:00000000-0000-0000-0000-000000000001', {});
      variant(authOf(issuer), 'urn:uuid:ffffffff-ffff-ffff-ffff-ffffffffffff', {});
      variant(authOf(issuer), 'urn:uuid:decoy-issuer-object', { issuer: { id: issuer } });
      variant(authOf(issuer), 'urn:uuid:decoy-type-string', { type: 'AuthBJJCredential' });
      variant(authOf(issuer), 'urn:uuid:decoy-type-elsewhere', { type: ['VerifiableCredential', 'KYCAgeCredential'], credentialSubject: { ...(authOf(issuer).credentialSubject as Json), note: 'AuthBJJCredential' } });
      variant(authOf(issuer), 'urn:uuid:decoy-other-context', { '@context': ['https://www.w3.org/2018/credentials/v1'] });

      const scan = new sdk.CredentialStorage(new StoreDataSource(ctx.store, CREDENTIALS_NS, 'id'));
      const ours = iden3.dataStorage.credential;
      const ids = (credentials: Array<{ id: string }>): string[] => credentials.map((c) => c.id);
      const load = vi.spyOn(StoreDataSource.prototype, 'load');
      const queries = [[issuer], [holder], [issuer, holder], ['did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR']].map((allowedIssuers) => ({
        context: sdk.VerifiableConstants.AUTH.AUTH_BJJ_CREDENTIAL_SCHEMA_JSONLD_URL,
        type: sdk.VerifiableConstants.AUTH.AUTH_BJJ_CREDENTIAL_TYPE,
        allowedIssuers,
      }));
      for (const query of queries) {
        load.mockClear();
        const indexed = ids(await ours.findCredentialsByQuery(query));
        expect(load, 'the auth key query read every credential').not.toHaveBeenCalled();
        const expected = ids(await scan.findCredentialsByQuery(query));
        expect(indexed, JSON.stringify(query.allowedIssuers)).toEqual(expected);
      }
      expect(ids(await ours.findCredentialsByQuery(queries[0]!))).toEqual([
        'urn:uuid:00000000-0000-0000-0000-000000000001',
        ...ids([authOf(issuer) as { id: string }]),
        'urn:uuid:ffffffff-ffff-ffff-ffff-ffffffffffff',
      ].sort());
      // The js-sdk's own lookup through the credential wallet: the issuer's auth keys.
      expect(ids(await iden3.credentialWallet.getAllAuthBJJCredentials(sdk.core.DID.parse(issuer)))).toEqual(ids(await scan.findCredentialsByQuery(queries[0]!)));
      // Any other query: the js-sdk's scan.
      load.mockClear();
      const other = { type: 'KYCAgeCredential', allowedIssuers: [issuer] };
      expect(ids(await ours.findCredentialsByQuery(other))).toEqual(['urn:uuid:decoy-type-elsewhere']);
      expect(load).toHaveBeenCalled();
      load.mockRestore();
    } finally {
      await ctx.close();
    }
  });
});
