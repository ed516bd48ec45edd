/**
 * Minimal typings of Digital Bazaar's Bitstring Status List packages (they ship none): what
 * src/status calls, and what the interop tests call directly.
 */
declare module '@digitalbazaar/vc-bitstring-status-list' {
  export class BitstringStatusList {
    constructor(options: { length?: number; buffer?: Uint8Array });
    readonly length: number;
    setStatus(index: number, status: boolean): void;
    getStatus(index: number): boolean;
    /** 'u' + base64url(GZIP(bits)): the encodedList of a BitstringStatusList. */
    encode(): Promise<string>;
  }
  export const VC_BSL_VC_V1_CONTEXT: string[];
  export const VC_BSL_VC_V2_CONTEXT: string[];
  export function createList(options: { length: number }): Promise<BitstringStatusList>;
  export function decodeList(options: { encodedList: string }): Promise<BitstringStatusList>;
  export function createCredential(options: { id: string; list: BitstringStatusList; statusPurpose: string; context?: string[] }): Promise<Record<string, unknown>>;
  export function checkStatus(options: {
    credential: object;
    documentLoader: (url: string) => Promise<unknown>;
    suite?: unknown;
    verifyBitstringStatusListCredential?: boolean;
    verifyMatchingIssuers?: boolean;
  }): Promise<{ verified: boolean; error?: Error; results?: Array<{ verified: boolean; status: boolean; credentialStatus: Record<string, unknown> }> }>;
}

declare module '@digitalbazaar/vc-bitstring-status-list-context' {
  export const CONTEXT_URL: string;
  export const CONTEXT: Record<string, unknown>;
}
