pragma circom 2.1.5;

// Identity ownership: the prover holds the BJJ key of an auth claim of the identity at a state,
// and that state is the one the global identity state tree (GIST) knows for the identity.

include "circomlib/circuits/eddsaposeidon.circom";
include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/smt/smtverifier.circom";
include "claims.circom";
include "ids.circom";

// Schema hash of AuthBJJCredential (SchemaHash.authSchemaHash in js-iden3-core): only claims of
// this schema carry a key that may act for the identity.
function authSchemaHash() {
    return 80551937543569765027552589160822318028;
}

// The claim's schema (low 128 bits of slot i_0) is the auth schema. Writing the slot as
// schema + 2^128 * rest with rest < 2^125 keeps the split unique (the sum stays below p) at half
// the cost of a full bit decomposition.
template HasAuthSchema() {
    signal input slot0;

    signal rest <-- slot0 >> 128;
    slot0 === authSchemaHash() + rest * (1 << 128);
    signal restBits[125] <== Num2Bits(125)(rest);
}

// The identity at `state` has the auth claim in its claims tree, not revoked in its revocation
// tree, and `challenge` is signed (EdDSA-Poseidon) by the claim's BJJ key (slots i_2, i_3).
template IdentityOwnership(levels) {
    signal input state;
    signal input claimsTreeRoot;
    signal input revTreeRoot;
    signal input rootsTreeRoot;

    signal input authClaim[8];
    signal input authClaimIncMtp[levels];
    signal input authClaimNonRevMtp[levels];
    signal input authClaimNonRevMtpNoAux;
    signal input authClaimNonRevMtpAuxHi;
    signal input authClaimNonRevMtpAuxHv;

    signal input challenge;
    signal input signatureR8x;
    signal input signatureR8y;
    signal input signatureS;

    // The leaf of the auth claim, for callers that prove it in another tree too.
    signal output authClaimHi;
    signal output authClaimHv;

    component schema = HasAuthSchema();
    schema.slot0 <== authClaim[0];

    component leaf = ClaimLeaf();
    leaf.claim <== authClaim;
    authClaimHi <== leaf.hi;
    authClaimHv <== leaf.hv;

    component included = LeafInTree(levels);
    included.key <== leaf.hi;
    included.value <== leaf.hv;
    included.root <== claimsTreeRoot;
    included.mtp <== authClaimIncMtp;

    component nonce = ClaimRevNonceAndExpiration();
    nonce.slot4 <== authClaim[4];

    component notRevoked = RevNonceNotRevoked(levels);
    notRevoked.enabled <== 1;
    notRevoked.revNonce <== nonce.revNonce;
    notRevoked.revTreeRoot <== revTreeRoot;
    notRevoked.mtp <== authClaimNonRevMtp;
    notRevoked.mtpNoAux <== authClaimNonRevMtpNoAux;
    notRevoked.mtpAuxHi <== authClaimNonRevMtpAuxHi;
    notRevoked.mtpAuxHv <== authClaimNonRevMtpAuxHv;

    component roots = StateMatchesRoots();
    roots.claimsTreeRoot <== claimsTreeRoot;
    roots.revTreeRoot <== revTreeRoot;
    roots.rootsTreeRoot <== rootsTreeRoot;
    roots.state <== state;

    component signature = EdDSAPoseidonVerifier();
    signature.enabled <== 1;
    signature.Ax <== authClaim[2];
    signature.Ay <== authClaim[3];
    signature.S <== signatureS;
    signature.R8x <== signatureR8x;
    signature.R8y <== signatureR8y;
    signature.M <== challenge;
}

// The GIST (State contract) maps Poseidon(genesisId) to the identity's latest state. A state is
// current when it is that leaf; a genesis state (the one the id derives from) is current while the
// identity has no leaf at all.
template StateInGist(levels) {
    signal input genesisId;
    signal input idGenesis;
    signal input state;
    signal input gistRoot;
    signal input gistMtp[levels];
    signal input gistMtpNoAux;
    signal input gistMtpAuxHi;
    signal input gistMtpAuxHv;

    gistMtpNoAux * (gistMtpNoAux - 1) === 0;

    component genesis = IsGenesisState();
    genesis.idGenesis <== idGenesis;
    genesis.state <== state;

    signal key <== Poseidon(1)([genesisId]);

    component smt = SMTVerifier(levels);
    smt.enabled <== 1;
    // inclusion for a published state, non-inclusion of the id for a genesis state
    smt.fnc <== genesis.out;
    smt.root <== gistRoot;
    smt.siblings <== gistMtp;
    smt.oldKey <== gistMtpAuxHi;
    smt.oldValue <== gistMtpAuxHv;
    smt.isOld0 <== gistMtpNoAux;
    smt.key <== key;
    smt.value <== state;
}
