/**
 * Minimal typings of the Digital Bazaar bbs-2023 packages (they ship none): only what
 * src/sd/suites/bbs2023/bbs2023Suite.ts calls.
 */
declare module '@digitalbazaar/bls12-381-multikey' {
  interface BbsKeyPair {
    id?: string;
    controller?: string;
    publicKey: Uint8Array;
    secretKey?: Uint8Array;
    export(options: { publicKey?: boolean; secretKey?: boolean; includeContext?: boolean }): Promise<{ publicKeyMultibase: string; secretKeyMultibase?: string }>;
    signer(): { algorithm: string; id: string; sign(options: { data: Uint8Array }): Promise<Uint8Array> };
  }
  export const ALGORITHMS: { BBS_BLS12381_SHA256: string; BBS_BLS12381_SHAKE256: string };
  export function generateBbsKeyPair(options: { algorithm: string; seed?: Uint8Array; id?: string; controller?: string }): Promise<BbsKeyPair>;
  export function from(multikey: Record<string, unknown>): Promise<BbsKeyPair>;
  export function fromRaw(options: { algorithm: string; secretKey?: Uint8Array; publicKey: Uint8Array }): Promise<BbsKeyPair>;
}

declare module '@digitalbazaar/bbs-2023-cryptosuite' {
  interface Cryptosuite {
    name: string;
    options: Record<string, unknown>;
    results?: { lastParsedProof: { presentationHeader: Uint8Array } | null };
  }
  export function createSignCryptosuite(options?: { mandatoryPointers?: string[] }): Cryptosuite;
  export function createDiscloseCryptosuite(options?: { proofId?: string; selectivePointers?: string[]; presentationHeader?: Uint8Array }): Cryptosuite;
  export function createVerifyCryptosuite(options?: { expectedPresentationHeader?: Uint8Array }): Cryptosuite;
}

declare module '@digitalbazaar/data-integrity' {
  export class DataIntegrityProof {
    constructor(options: { signer?: unknown; date?: Date | string | null; cryptosuite: unknown; legacyContext?: boolean });
  }
}

declare module '@digitalbazaar/vc' {
  type Loader = (url: string) => Promise<unknown>;
  interface VerifyResult {
    verified: boolean;
    error?: unknown;
    results?: Array<{ verified: boolean; error?: unknown }>;
  }
  export function issue(options: { credential: object; suite: unknown; documentLoader: Loader; now?: Date | string }): Promise<Record<string, unknown>>;
  export function derive(options: { verifiableCredential: object; suite: unknown; documentLoader: Loader }): Promise<Record<string, unknown>>;
  export function verifyCredential(options: { credential: object; suite: unknown; documentLoader: Loader; now?: Date | string; maxClockSkew?: number; checkStatus?: unknown; purpose?: unknown }): Promise<VerifyResult>;
  /** Extends jsonld-signatures' AssertionProofPurpose with the check that the issuer controls the key. */
  export class CredentialIssuancePurpose {}
}
