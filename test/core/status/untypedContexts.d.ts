// Digital Bazaar's context packages ship no type declarations; the status interop test reads their
// `contexts` maps directly (a document loader of Digital Bazaar's side, not vc's).
declare module '@digitalbazaar/credentials-context' {
  export const contexts: Map<string, object>;
}
declare module '@digitalbazaar/data-integrity-context' {
  export const contexts: Map<string, object>;
}
declare module '@digitalbazaar/multikey-context' {
  export const contexts: Map<string, object>;
}
