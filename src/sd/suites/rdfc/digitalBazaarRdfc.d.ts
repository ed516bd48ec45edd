/**
 * Minimal typings of the Digital Bazaar packages of eddsa-rdfc-2022 and ecdsa-rdfc-2019 (they ship
 * none): only what src/sd/suites/rdfc/rdfcSuite.ts and the tests call, with the presentation calls
 * of @digitalbazaar/vc (merged with its declaration in src/sd/suites/bbs2023/digitalBazaar.d.ts).
 */
declare module '@digitalbazaar/eddsa-rdfc-2022-cryptosuite' {
  export const cryptosuite: { name: string; requiredAlgorithm: string | string[] };
}

declare module '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite' {
  export const cryptosuite: { name: string; requiredAlgorithm: string | string[] };
}

declare module '@digitalbazaar/ed25519-multikey' {
  interface Ed25519KeyPair {
    id?: string;
    controller?: string;
    publicKey: Uint8Array;
    secretKey?: Uint8Array;
    export(options?: { publicKey?: boolean; secretKey?: boolean; includeContext?: boolean; raw?: boolean }): Promise<{ publicKeyMultibase?: string; secretKeyMultibase?: string; publicKey?: Uint8Array; secretKey?: Uint8Array }>;
    signer(): { algorithm: string; id: string; sign(options: { data: Uint8Array }): Promise<Uint8Array> };
    verifier(): { algorithm: string; id: string; verify(options: { data: Uint8Array; signature: Uint8Array }): Promise<boolean> };
  }
  export function generate(options?: { id?: string; controller?: string; seed?: Uint8Array }): Promise<Ed25519KeyPair>;
  export function from(multikey: Record<string, unknown>): Promise<Ed25519KeyPair>;
}

declare module '@digitalbazaar/ecdsa-multikey' {
  interface EcdsaKeyPair {
    id?: string;
    controller?: string;
    publicKeyMultibase: string;
    export(options?: { publicKey?: boolean; secretKey?: boolean; includeContext?: boolean; raw?: boolean }): Promise<{ publicKeyMultibase?: string; secretKeyMultibase?: string; publicKey?: Uint8Array; secretKey?: Uint8Array }>;
    signer(): { algorithm: string; id: string; sign(options: { data: Uint8Array }): Promise<Uint8Array> };
    verifier(): { algorithm: string; id: string; verify(options: { data: Uint8Array; signature: Uint8Array }): Promise<boolean> };
  }
  export function generate(options: { id?: string; controller?: string; curve: 'P-256' | 'P-384' | 'P-521' }): Promise<EcdsaKeyPair>;
  export function from(multikey: Record<string, unknown>): Promise<EcdsaKeyPair>;
  export function fromRaw(options: { curve: 'P-256' | 'P-384' | 'P-521'; secretKey?: Uint8Array; publicKey: Uint8Array }): Promise<EcdsaKeyPair>;
}

declare module '@digitalbazaar/vc' {
  interface VerifyPresentationResult {
    verified: boolean;
    error?: unknown;
    presentationResult?: { verified: boolean; error?: unknown; results?: Array<{ verified: boolean; error?: unknown }> };
    credentialResults?: Array<{ verified: boolean; error?: unknown }>;
  }
  export function createPresentation(options: { verifiableCredential?: object | object[]; id?: string; holder?: string; version?: number }): Record<string, unknown>;
  export function signPresentation(options: { presentation: object; suite: unknown; challenge: string; domain?: string; documentLoader: (url: string) => Promise<unknown> }): Promise<Record<string, unknown>>;
  export function verify(options: {
    presentation: object;
    suite: unknown;
    challenge?: string;
    domain?: string;
    documentLoader: (url: string) => Promise<unknown>;
    now?: Date | string;
    maxClockSkew?: number;
    checkStatus?: unknown;
    presentationPurpose?: unknown;
    unsignedPresentation?: boolean;
  }): Promise<VerifyPresentationResult>;
}
