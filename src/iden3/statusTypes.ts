/**
 * The credential status types of the iden3 stack that vc resolves: Iden3ReverseSparseMerkleTreeProof
 * (./rhs.ts), Iden3OnchainSparseMerkleTreeProof2023 (./onchainStatus.ts) and
 * Iden3commRevocationStatusV1.0 (./agentStatus.ts). A credential carrying another type (or whose
 * issuer's signing key status has another type) is refused with the reason wherever vc meets one,
 * before anything is asked of a chain or a service.
 */

/** The status types vc resolves, as credentials carry them. */
export const RESOLVED_STATUS_TYPES: readonly string[] = ['Iden3ReverseSparseMerkleTreeProof', 'Iden3OnchainSparseMerkleTreeProof2023', 'Iden3commRevocationStatusV1.0'];

/** Why vc cannot resolve a status of this type, or undefined when it can. */
export function unsupportedIden3StatusProblem(type: unknown): string | undefined {
  if (typeof type === 'string' && RESOLVED_STATUS_TYPES.includes(type)) return undefined;
  return `${JSON.stringify(type) ?? String(type)} is not a status type vc resolves (${RESOLVED_STATUS_TYPES.join(', ')}), so it cannot tell whether the credential is revoked`;
}
