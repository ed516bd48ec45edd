/**
 * Selective disclosure with BBS+ (issuer, holder, verifier operations); see DESIGN.md.
 */
export { issueSelectiveDisclosureCredential, samplePassportSubject, SD_CREDENTIAL_CONTEXTS, type IssueSelectiveDisclosureOptions } from './sdIssuance.js';
export { deriveSelectiveDisclosure, DISCLOSURE_MESSAGE, type DeriveSelectiveDisclosureOptions, type DeriveSelectiveDisclosureResult } from './disclose.js';
export { storeSelectiveDisclosureCredential, type StoreSelectiveDisclosureCredentialResult } from '../holder/holderImport.js';
export {
  createVerifierNonce,
  verifySelectiveDisclosure,
  VERIFIED_MESSAGE,
  DEFAULT_NONCE_TTL_SECONDS,
  type CreateVerifierNonceResult,
  type VerificationCheck,
  type VerifySelectiveDisclosureOptions,
  type VerifySelectiveDisclosureResult,
} from './verify.js';
export { describeIssuerBlsKey, type IssuerBlsKeyDescription } from './issuerKey.js';
