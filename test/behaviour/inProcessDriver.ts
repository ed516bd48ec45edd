/**
 * The in-process Driver: each operation validates the spec-shaped request with the shared schema
 * (the one source of truth for CLI input files and HTTP bodies) and calls the core operation with
 * a Context, the way the CLI commands do. Errors become DriverCallErrors carrying the VcError's
 * HTTP status, code, field and exit code.
 */
import { parseConfig, type RawVariables } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { parseInput } from '../../src/core/validate.js';
import { isVcError } from '../../src/errors.js';
import { DriverCallError, type Driver, type Json } from './driver.js';

/** Stops the local chain node a proof-by-query operation may have started for this wallet. */
export async function stopEmbeddedChain(ctx: Context): Promise<void> {
  const { stopLocalNode } = await import('../../src/chain/anvil.js');
  await stopLocalNode(ctx, { persist: false }).catch(() => undefined);
}

/** Names of the classes an error is an instance of, most specific first. */
function classChain(error: object): string[] {
  const names: string[] = [];
  for (let proto = Object.getPrototypeOf(error) as object | null; proto !== null && proto !== Error.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    names.push((proto.constructor as { name: string }).name);
  }
  return names;
}

async function call<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isVcError(error)) throw new DriverCallError(error.message, error.httpStatus, error.code, error.field, error.exitCode, classChain(error));
    throw error;
  }
}

/** A driver calling the core operations in this process, on a wallet at `home`. */
export function createInProcessDriver(vars: RawVariables, home: string): Driver {
  const ctx = new Context({ config: parseConfig(vars, home) });
  const source = 'request body';

  const sd = () => import('../../src/core/sd/index.js');
  const sdSchemas = () => import('../../src/core/sd/schemas.js');
  const pbqSchemas = () => import('../../src/core/pbq/schemas.js');

  return {
    kind: 'in-process',

    issueSdCredential: (body) =>
      call(async () => {
        const parsed = parseInput((await sdSchemas()).IssueSdRequestSchema, body, source);
        const credential = await (await sd()).issueSelectiveDisclosureCredential(ctx, {
          type: parsed.type,
          subject: parsed.credentialSubject,
          subjectSource: parsed.credentialSubject === undefined ? undefined : 'credentialSubject',
        });
        return credential as Json;
      }),

    storeSdCredential: (body) =>
      call(async () => {
        const parsed = parseInput((await sdSchemas()).StoreSdCredentialRequestSchema, body, source);
        return (await sd()).storeSelectiveDisclosureCredential(ctx, { credential: parsed.credential, source: 'credential' });
      }),

    discloseSd: (body) =>
      call(async () => {
        const parsed = parseInput((await sdSchemas()).DiscloseRequestSchema, body, source);
        const result = await (await sd()).deriveSelectiveDisclosure(ctx, { type: parsed.credentialType, keys: parsed.selectiveDisclosureKeys, nonce: parsed.nonce });
        return { message: result.message, vc: result.vc as Json };
      }),

    createNonce: (body = {}) =>
      call(async () => (await sd()).createVerifierNonce(ctx, body.ttlSeconds === undefined ? {} : { ttlSeconds: body.ttlSeconds })),

    verifyVc: (body) =>
      call(async () => {
        const parsed = parseInput((await sdSchemas()).VerifyRequestSchema, body, source);
        return (await sd()).verifySelectiveDisclosure(ctx, { vc: parsed.vc });
      }),

    createHolderDid: (body = {}) =>
      call(async () => {
        const parsed = parseInput((await pbqSchemas()).holderDidOptionsSchema, body, source);
        const { createHolderIdentity } = await import('../../src/core/pbq/did.js');
        return createHolderIdentity(ctx, { new: parsed.new });
      }),

    createIssuerDid: () =>
      call(async () => {
        const { createIssuerIdentity } = await import('../../src/core/pbq/did.js');
        return createIssuerIdentity(ctx);
      }),

    issuePbqCredential: (body) =>
      call(async () => {
        const parsed = parseInput((await pbqSchemas()).issueBodySchema, body, source);
        const { issuePbqCredential } = await import('../../src/core/pbq/issue.js');
        return issuePbqCredential(ctx, {
          holderDid: parsed.did,
          ...(parsed.type === undefined ? {} : { type: parsed.type }),
          ...(parsed.subject === undefined ? {} : { subject: parsed.subject }),
        });
      }),

    createCredentialRequest: (body = {}) =>
      call(async () => {
        const parsed = parseInput((await pbqSchemas()).requestOptionsSchema, body, source);
        const { createCredentialRequest } = await import('../../src/core/pbq/request.js');
        const options = Object.fromEntries(Object.entries(parsed).filter(([, value]) => value !== undefined));
        return (await createCredentialRequest(ctx, options)) as Json & { id: number };
      }),

    proveSubmit: (body) =>
      call(async () => {
        const parsed = parseInput((await pbqSchemas()).proveSubmitBodySchema, body, source);
        const { proveAndSubmit } = await import('../../src/core/pbq/prove.js');
        return (await proveAndSubmit(ctx, { credential: parsed.verifiableCredential, request: parsed.credentialRequest })) as Json;
      }),

    revokePbqCredential: (body) =>
      call(async () => {
        const parsed = parseInput((await pbqSchemas()).revokeBodySchema, body, source);
        const { revokePbqCredential } = await import('../../src/core/pbq/issue.js');
        return (await revokePbqCredential(ctx, parsed)) as unknown as Json;
      }),

    close: async () => {
      await stopEmbeddedChain(ctx);
      await ctx.close();
    },
  };
}
