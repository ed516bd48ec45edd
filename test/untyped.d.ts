// snarkjs ships no type declarations; tests use it untyped.
declare module 'snarkjs';

// @digitalbazaar/bbs-signatures ships none either; the two calls test/sd/suites/bbs2023/generatorCache.test.ts makes.
declare module '@digitalbazaar/bbs-signatures' {
  interface SignatureOptions { publicKey: Uint8Array; header: Uint8Array; messages: Uint8Array[]; ciphersuite: string }
  export function sign(options: SignatureOptions & { secretKey: Uint8Array }): Promise<Uint8Array>;
  export function verifySignature(options: SignatureOptions & { signature: Uint8Array }): Promise<boolean>;
}
