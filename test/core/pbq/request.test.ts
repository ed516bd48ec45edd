/**
 * `vc verifier request` checks the query against the type's JSON-LD context before it waits for
 * anything heavy: a field the context does not define is refused at once, without building or
 * loading circuits, starting the local chain or searching for a request id.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context, ServiceKey } from '../../../src/context.js';
import { createCredentialRequest } from '../../../src/core/pbq/request.js';
import { InputError } from '../../../src/errors.js';
import { tempDir, templateHome } from '../../helpers.js';

const tmp = tempDir('vc-pbq-request-');
afterAll(() => tmp.cleanup());

describe('createCredentialRequest', () => {
  it('refuses a field the context does not define before touching the circuits or the chain', async () => {
    const ctx = new Context({ config: parseConfig({}, templateHome(`${tmp.dir}/home`)) });
    try {
      const error = await createCredentialRequest(ctx, { field: 'birthDat', op: '$lt', value: 20010101 }).catch((e: unknown) => e);
      // A field the type does not have is the caller's mistake (exit 2 / 400), with the field it meant.
      expect(error).toBeInstanceOf(InputError);
      expect((error as Error).message).toMatch(/^field: PassportCredential has no field birthDat \(did you mean birthDate\?\); its fields: .*birthDate/);
      expect(ctx.peek(new ServiceKey('iden3.circuitsDir'))).toBeUndefined();
      expect(ctx.peek(new ServiceKey('chain'))).toBeUndefined();
      expect(ctx.peek(new ServiceKey('chain.connection'))).toBeUndefined();
    } finally {
      await ctx.close();
    }
  }, 60_000);
});
