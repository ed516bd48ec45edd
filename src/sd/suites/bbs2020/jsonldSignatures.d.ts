/**
 * Minimal typings of jsonld-signatures 7 (it ships none): only what src/sd/suites/bbs2020/bbs2020Suite.ts calls.
 */
declare module 'jsonld-signatures' {
  interface ProofPurpose {
    readonly term: string;
  }
  interface VerifyResult {
    verified: boolean;
    results?: Array<{ verified: boolean; error?: unknown; proof?: unknown }>;
    error?: unknown;
  }
  interface JsonLdSignatures {
    sign(document: object, options: { suite: unknown; purpose: ProofPurpose; documentLoader: unknown; expansionMap?: unknown }): Promise<Record<string, unknown>>;
    verify(document: object, options: { suite: unknown; purpose: ProofPurpose; documentLoader: unknown; expansionMap?: unknown }): Promise<VerifyResult>;
    purposes: {
      AssertionProofPurpose: new (options?: { controller?: object; date?: string | Date; maxTimestampDelta?: number }) => ProofPurpose;
    };
  }
  const jsigs: JsonLdSignatures;
  export default jsigs;
}
