/**
 * The sizes and auth circuits of iden3comm authorization requests vc makes and answers (issue 28),
 * in a module of their own: the operation table reads them without loading the request builder.
 */

/**
 * The auth circuits of the JWZ answers vc makes and verifies (Groth16): authV2, and its successor
 * authV3 at the official size (40, 64) or the small one (8, 32).
 */
export const AUTH_CIRCUITS = ['authV2', 'authV3', 'authV3-8-32'] as const;
export type AuthCircuit = (typeof AUTH_CIRCUITS)[number];

/**
 * The most proof requests in one scope: what vc's holder answers (`vc holder respond`) and
 * `vc verifier auth-request` asks. Each is a V3 proof the wallet makes and the verifier checks
 * (about a second each with vc's native prover, several with a wallet's snarkjs); Privado ID
 * verifiers ask for one to a few.
 */
export const MAX_SCOPE_ITEMS = 16;

/** The largest request (its JSON): what vc's holder reads (a file, a link's message or a request_uri's answer); requests are a few KB. */
export const MAX_AUTH_REQUEST_BYTES = 64 * 1024;
