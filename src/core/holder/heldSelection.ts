/**
 * Which held credential a command uses when it is not given one: the one named by its id, or the
 * newest of the type asked for (with a note when several are held). `vc holder prove-submit`
 * proves iden3 credentials; `vc holder disclose` (src/core/sd/disclose.ts) discloses BBS+ ones.
 */
import type { Context } from '../../context.js';
import { InputError, NotFoundError, UnprocessableError } from '../../errors.js';
import { parseInput, type FieldNamer } from '../validate.js';
import { MTP_ON_CHAIN_CIRCUIT, PROOF_TYPES, pbqCredentialSchema, type CredentialRequest, type PbqCredentialInput } from '../pbq/pbqSchemas.js';
import { PROFILES_NS } from '../../iden3/storage.js';
import { newestHeldCredential, requireHeldCredential, type HeldCredentialRecord } from './holderStore.js';

/**
 * The proof types a credential may prove `request` with: the MTP for credentialAtomicQueryMTPV2OnChain
 * (and a V3 request asking for it), the signature for a V3 request asking for it, either otherwise.
 */
function usableProofTypes(request: CredentialRequest): string[] {
  if (request.circuitId === MTP_ON_CHAIN_CIRCUIT) return [PROOF_TYPES.mtp];
  return request.query.proofType === undefined ? [PROOF_TYPES.sig, PROOF_TYPES.mtp] : [request.query.proofType];
}

/**
 * The iden3 credential to prove a request with: the held one `credentialId` names, or the newest
 * held iden3 credential of the request's type, context and allowed issuers that carries a proof
 * the request can use (a signature-only credential serves V3 requests only) and, for a request
 * with a nullifier session, is issued to a profile DID (only those give a nullifier).
 */
export function selectHeldIden3Credential(
  ctx: Context,
  options: {
    credentialId?: string | undefined;
    request: CredentialRequest;
    names: FieldNamer;
    /** Without an id: also only credentials this accepts (`vc holder respond`: those that satisfy the query). */
    satisfies?: ((credential: Record<string, unknown>) => boolean) | undefined;
  },
): PbqCredentialInput {
  const { names, request } = options;
  let record: HeldCredentialRecord | undefined;
  if (options.credentialId !== undefined) {
    record = requireHeldCredential(ctx, options.credentialId, 'credentialId', names('credentialId'));
    if (record.kind !== 'iden3') {
      throw new UnprocessableError(`${names('credentialId')}: ${record.id} is a ${record.kind} credential; prove-submit proves iden3 credentials (\`vc holder disclose --id\` discloses BBS+ ones)`, { field: 'credentialId' });
    }
  } else {
    const { type, context, allowedIssuers } = request.query;
    const usable = usableProofTypes(request);
    const needsProfile = request.params?.nullifierSessionId !== undefined;
    const isProfile = (subject: unknown): boolean => typeof subject === 'string' && ctx.store.get<unknown>(PROFILES_NS, subject) !== undefined;
    record = newestHeldCredential(
      ctx,
      {
        type,
        kinds: ['iden3'],
        accept: (candidate) => {
          const contexts = candidate.credential['@context'];
          const proofs = candidate.credential.proof;
          const proofTypes = (Array.isArray(proofs) ? proofs : [proofs]).map((proof) => (proof as { type?: unknown } | undefined)?.type);
          return (
            Array.isArray(contexts) &&
            contexts.includes(context) &&
            (allowedIssuers.includes('*') || allowedIssuers.includes(candidate.issuer)) &&
            proofTypes.some((proofType) => typeof proofType === 'string' && usable.includes(proofType)) &&
            (!needsProfile || isProfile((candidate.credential.credentialSubject as { id?: unknown } | undefined)?.id)) &&
            (options.satisfies === undefined || options.satisfies(candidate.credential))
          );
        },
      },
      `iden3 ${type} credentials the request can use`,
    );
    if (record === undefined) {
      const issuers = allowedIssuers.includes('*') ? '' : ` from ${allowedIssuers.join(', ')}`;
      throw new NotFoundError(
        `${names('verifiableCredential')}: missing, and the holder has no iden3 ${type} credential with the context ${context}${issuers}${needsProfile ? ', issued to a profile DID (the request asks for a nullifier),' : ''} and a proof the request can use (${usable.join(' or ')}): give the credential, its id (${names('credentialId')}), or keep one first (vc holder credentials import FILE)`,
        { field: 'verifiableCredential' },
      );
    }
  }
  return parseInput(pbqCredentialSchema, record.credential, `the held credential ${record.id}`);
}

/** Refuses a command given both the credential and the id of a held one. */
export function refuseCredentialAndId(names: FieldNamer, credentialField: string, given: { credential?: unknown; credentialId?: unknown }): void {
  if (given.credential !== undefined && given.credentialId !== undefined) {
    throw new InputError(`${names(credentialField)} and ${names('credentialId')} both name a credential: give one of them`, { field: 'credentialId' });
  }
}
