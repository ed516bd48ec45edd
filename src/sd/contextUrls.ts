/**
 * The URLs of the JSON-LD documents the BBS+ flow uses; all of them are bundled (see
 * documentLoader.ts), so these names are stable identifiers, never fetched.
 */

/** URL of the W3C credentials v1 context. */
export const CREDENTIALS_V1_URL = 'https://www.w3.org/2018/credentials/v1';
/** URL of the BBS+ (BbsBlsSignature2020) context. */
export const BBS_V1_URL = 'https://w3id.org/security/bbs/v1';
/** URL of our selective-disclosure passport context (fixtures/contexts/sd-passport-v1.json). */
export const SD_PASSPORT_CONTEXT_URL = 'https://vc.example/contexts/sd-passport/v1';
/** URL of our passport context for VC 2.0 (bbs-2023; fixtures/contexts/sd-passport-v2.json). */
export const SD_PASSPORT_V2_CONTEXT_URL = 'https://vc.example/contexts/sd-passport/v2';
/** URL of the JSON schema of the selective-disclosure passport credential. */
export const SD_PASSPORT_SCHEMA_URL = 'https://vc.example/schemas/sd-passport/v1.json';
