/**
 * The credential status types of the iden3 stack and what vc does with each: it resolves
 * Iden3ReverseSparseMerkleTreeProof (./rhs.ts) and Iden3OnchainSparseMerkleTreeProof2023
 * (./onchainStatus.ts); Iden3commRevocationStatusV1.0 needs an iden3comm agent vc does not have
 * yet, so a credential carrying it is refused with the reason wherever vc meets one.
 */
import { UnprocessableError } from '../errors.js';

/** The iden3comm status type (the issuer's agent answers a revocation-status message). */
export const IDEN3COMM_STATUS_TYPE = 'Iden3commRevocationStatusV1.0';

/**
 * Why vc cannot hold or prove with a credential whose status (or whose issuer's signing key
 * status) has this type, or undefined when it can: an Iden3commRevocationStatusV1.0 status is
 * answered by the issuer's iden3comm agent only, and vc has no iden3comm agent yet.
 */
export function unsupportedIden3StatusProblem(type: unknown): string | undefined {
  if (type !== IDEN3COMM_STATUS_TYPE) return undefined;
  return `${IDEN3COMM_STATUS_TYPE} is not supported yet: only the issuer's iden3comm agent answers that status, and vc has no iden3comm agent, so it cannot tell whether the credential is revoked (ask the issuer for one with Iden3ReverseSparseMerkleTreeProof or Iden3OnchainSparseMerkleTreeProof2023)`;
}

/**
 * The resolver registered for Iden3commRevocationStatusV1.0, so that a path reaching the js-sdk's
 * registry with one (the status of an issuer's signing key inside a proof, say) meets the same
 * reason instead of the js-sdk's "resolver does not exist".
 */
export class UnsupportedStatusResolver {
  constructor(private readonly type: string) {}

  resolve(): Promise<never> {
    return Promise.reject(new UnprocessableError(unsupportedIden3StatusProblem(this.type) ?? `${this.type} is not supported`, { field: 'credentialStatus.type' }));
  }
}
