pragma circom 2.1.5;

// Identity ownership as authV2/authV3 and credentialAtomicQueryV3OnChain check it, switchable: with
// `enabled` = 0 none of the checks binds (the on-chain query circuit skips them for identities
// without a BJJ key). What is decomposed or hashed regardless (the genesis id must be a 248-bit
// number, the signature's S a 253-bit one) constrains the inputs whether or not the checks apply,
// as in the official circuits.

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/eddsaposeidon.circom";
include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/smt/smtverifier.circom";
include "claims.circom";
include "claimsV3.circom";
include "ids.circom";
include "ownership.circom";

// Splits an id like IdParts and adds the checksum part (bytes 29-30) and the checksum computed
// from the type and genesis bytes.
template IdPartsWithChecksum() {
    signal input id;
    signal output typ;
    signal output typByteSum;
    signal output genesis;
    signal output checksum;
    signal output computedChecksum;

    signal bits[248] <== Num2Bits(248)(id);

    var typValue = 0;
    var typBytes = 0;
    for (var i = 0; i < 16; i++) {
        typValue += bits[i] * (1 << i);
        typBytes += bits[i] * (1 << (i % 8));
    }
    var genesisValue = 0;
    var genesisBytes = 0;
    for (var i = 0; i < 216; i++) {
        genesisValue += bits[16 + i] * (1 << i);
        genesisBytes += bits[16 + i] * (1 << (i % 8));
    }
    var checksumValue = 0;
    for (var i = 0; i < 16; i++) {
        checksumValue += bits[232 + i] * (1 << i);
    }
    typ <== typValue;
    typByteSum <== typBytes;
    genesis <== genesisValue;
    checksum <== checksumValue;
    computedChecksum <== typBytes + genesisBytes;
}

// a === b when enabled.
template EqualIf() {
    signal input enabled;
    signal input in[2];

    (in[0] - in[1]) * enabled === 0;
}

// The point (x, y) is on the Baby Jubjub curve (a x^2 + y^2 = 1 + d x^2 y^2), when enabled.
template OnBabyJubjubIf() {
    signal input enabled;
    signal input x;
    signal input y;

    signal x2 <== x * x;
    signal y2 <== y * y;
    signal x2y2 <== x2 * y2;
    EqualIf()(enabled, [168700 * x2 + y2, 1 + 168696 * x2y2]);
}

// `M` is signed (EdDSA-Poseidon) with the key (Ax, Ay), when enabled. S must be below 2^253 and
// the point arithmetic defined whatever `enabled` (circomlib's verifier computes it always).
template SignedIf() {
    signal input enabled;
    signal input Ax;
    signal input Ay;
    signal input R8x;
    signal input R8y;
    signal input S;
    signal input M;

    OnBabyJubjubIf()(enabled, R8x, R8y);

    component verifier = EdDSAPoseidonVerifier();
    verifier.enabled <== enabled;
    verifier.Ax <== Ax;
    verifier.Ay <== Ay;
    verifier.R8x <== R8x;
    verifier.R8y <== R8y;
    verifier.S <== S;
    verifier.M <== M;
}

// The leaf (key, value) is in the tree with root `root` (when enabled).
template LeafInTreeIf(levels) {
    signal input enabled;
    signal input key;
    signal input value;
    signal input root;
    signal input mtp[levels];

    component smt = SMTVerifier(levels);
    smt.enabled <== enabled;
    smt.fnc <== 0;
    smt.root <== root;
    smt.siblings <== mtp;
    smt.oldKey <== 0;
    smt.oldValue <== 0;
    smt.isOld0 <== 0;
    smt.key <== key;
    smt.value <== value;
}

// `key` is not in the tree with root `root` (when enabled); the aux leaf and noAux flag are passed
// to circomlib's verifier as given.
template KeyNotInTreeIf(levels) {
    signal input enabled;
    signal input key;
    signal input root;
    signal input mtp[levels];
    signal input noAux;
    signal input auxHi;
    signal input auxHv;

    component smt = SMTVerifier(levels);
    smt.enabled <== enabled;
    smt.fnc <== 1;
    smt.root <== root;
    smt.siblings <== mtp;
    smt.oldKey <== auxHi;
    smt.oldValue <== auxHv;
    smt.isOld0 <== noAux;
    smt.key <== key;
    smt.value <== 0;
}

// Poseidon(claims root, revocation root, roots root) is `state`, when enabled.
template StateMatchesRootsIf() {
    signal input enabled;
    signal input claimsTreeRoot;
    signal input revTreeRoot;
    signal input rootsTreeRoot;
    signal input state;

    signal computed <== Poseidon(3)([claimsTreeRoot, revTreeRoot, rootsTreeRoot]);
    EqualIf()(enabled, [computed, state]);
}

// The claim is an auth claim (AuthBJJCredential schema) in the claims tree, not revoked in the
// revocation tree, and its BJJ key (i_2, i_3) signed `challenge`; when enabled.
template AuthClaimValidIf(levels) {
    signal input enabled;
    signal input claimsTreeRoot;
    signal input revTreeRoot;
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

    component header = ClaimSchemaAndFlags();
    header.slot0 <== authClaim[0];
    EqualIf()(enabled, [header.schema, authSchemaHash()]);

    component leaf = ClaimLeaf();
    leaf.claim <== authClaim;
    LeafInTreeIf(levels)(enabled, leaf.hi, leaf.hv, claimsTreeRoot, authClaimIncMtp);

    signal revNonce <== ClaimNonce()(authClaim[4]);
    KeyNotInTreeIf(levels)(enabled, revNonce, revTreeRoot, authClaimNonRevMtp, authClaimNonRevMtpNoAux, authClaimNonRevMtpAuxHi, authClaimNonRevMtpAuxHv);

    SignedIf()(enabled, authClaim[2], authClaim[3], signatureR8x, signatureR8y, signatureS, challenge);
}

// The holder controls the identity `genesisID` (ids.circom layout; its checksum must be right): an
// auth claim of its state `state` signed `challenge`, and that state is the identity's state in the
// GIST with root `gistRoot`, or its genesis state while the GIST has no entry for it. When enabled.
// The id parts come from the caller, which decomposes the id once for all its uses.
template AuthV3CheckIf(idOwnershipLevels, gistLevels) {
    signal input enabled;

    signal input genesisID;
    signal input idGenesis;
    signal input idChecksum;
    signal input idComputedChecksum;

    signal input state;
    signal input claimsTreeRoot;
    signal input revTreeRoot;
    signal input rootsTreeRoot;

    signal input authClaim[8];
    signal input authClaimIncMtp[idOwnershipLevels];
    signal input authClaimNonRevMtp[idOwnershipLevels];
    signal input authClaimNonRevMtpNoAux;
    signal input authClaimNonRevMtpAuxHi;
    signal input authClaimNonRevMtpAuxHv;

    signal input challenge;
    signal input challengeSignatureR8x;
    signal input challengeSignatureR8y;
    signal input challengeSignatureS;

    signal input gistRoot;
    signal input gistMtp[gistLevels];
    signal input gistMtpAuxHi;
    signal input gistMtpAuxHv;
    signal input gistMtpNoAux;

    AuthClaimValidIf(idOwnershipLevels)(
        enabled,
        claimsTreeRoot,
        revTreeRoot,
        authClaim,
        authClaimIncMtp,
        authClaimNonRevMtp,
        authClaimNonRevMtpNoAux,
        authClaimNonRevMtpAuxHi,
        authClaimNonRevMtpAuxHv,
        challenge,
        challengeSignatureR8x,
        challengeSignatureR8y,
        challengeSignatureS
    );

    StateMatchesRootsIf()(enabled, claimsTreeRoot, revTreeRoot, rootsTreeRoot, state);

    EqualIf()(enabled, [idChecksum, idComputedChecksum]);

    // Inclusion of Poseidon(genesisID) -> state for a published state; for the genesis state,
    // non-inclusion of the id (the identity has not published yet).
    signal isGenesis <== IsGenesisState()(idGenesis, state);
    signal key <== Poseidon(1)([genesisID]);

    component gist = SMTVerifier(gistLevels);
    gist.enabled <== enabled;
    gist.fnc <== isGenesis;
    gist.root <== gistRoot;
    gist.siblings <== gistMtp;
    gist.oldKey <== gistMtpAuxHi;
    gist.oldValue <== gistMtpAuxHv;
    gist.isOld0 <== gistMtpNoAux;
    gist.key <== key;
    gist.value <== state;
}
