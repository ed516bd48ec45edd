// A JavaScript transcription of the parts of iden3/circuits' Go test vector generator
// (testvectorgen/utils/{identity,utils}.go and testvectorgen/credentials/{v3,onchain/v3}/v3_test.go
// at the reference commit) needed for the non-merklized cases: the same fixed keys, claims, trees
// and field values, built with the JavaScript iden3 libraries instead of the Go ones. generate.mjs
// checks it against the vectors the Go generator once committed (a0c36a0^) before trusting it for
// the cases that were added after the vectors left the repository.
//
// Not run by the tests: only by generate.mjs.
import { PrivateKey, poseidon } from '@iden3/js-crypto';
import {
  Blockchain,
  Claim,
  ClaimOptions,
  DidMethod,
  ElemBytes,
  Id,
  NetworkId,
  SchemaHash,
  buildDIDType,
  genesisFromEthAddress,
} from '@iden3/js-iden3-core';
import { InMemoryDB, Merkletree, str2Bytes } from '@iden3/js-merkletree';

export const USER_PK = '28156abe7fe2fd433dc9df969286b96666489bac508612d0e16593e944c4f69e';
export const ISSUER_PK = '28156abe7fe2fd433dc9df969286b96666489bac508612d0e16593e944c4f69d';
export const ETH_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const TIMESTAMP = '1642074362';
export const CLAIM_SCHEMA = '180410020913331409885634153623124536270';
export const VERIFIER_ID = '21929109382993718606847853573861987353620810345503358891473103689157378049';
export const AUTH_SCHEMA_HASH = SchemaHash.authSchemaHash;

// utils/constants.go
export const OP = { NOOP: 0, EQ: 1, LT: 2, GT: 3, IN: 4, NIN: 5, NE: 6, LTE: 7, GTE: 8, BETWEEN: 9, NOT_BETWEEN: 10, EXISTS: 11, SD: 16 };
const IDENTITY_TREE_LEVELS = 40;
const GIST_LEVELS = 64;
const CLAIM_LEVELS = 32;

let treeCounter = 0;
function newTree(levels) {
  treeCounter++;
  return new Merkletree(new InMemoryDB(str2Bytes(`tvg-${treeCounter}`)), true, levels);
}

function hexBytes(hex) {
  return Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
}

/** PrepareStrArray: pads with "0" to `levels`. */
export function padStrings(values, levels) {
  const out = [...values];
  while (out.length < levels) out.push('0');
  return out;
}

/** PrepareSiblingsStr over a proof's siblings. */
function siblings(proof, levels) {
  return padStrings(proof.allSiblings().map((h) => h.bigInt().toString()), levels);
}

/** getNodeAuxValue: (0,0,0) for inclusion, the aux leaf for non-inclusion through a leaf, noAux 1 otherwise. */
function nodeAux(proof) {
  if (proof.existence) return { key: '0', value: '0', noAux: '0' };
  if (proof.nodeAux && proof.nodeAux.key !== undefined && proof.nodeAux.value !== undefined) {
    return { key: proof.nodeAux.key.bigInt().toString(), value: proof.nodeAux.value.bigInt().toString(), noAux: '0' };
  }
  return { key: '0', value: '0', noAux: '1' };
}

function claimJson(claim) {
  return claim.marshalJson();
}

class TestIdentity {
  static async fromKey(privateKeyHex) {
    const it = new TestIdentity();
    it.clt = newTree(IDENTITY_TREE_LEVELS);
    it.ret = newTree(IDENTITY_TREE_LEVELS);
    it.rot = newTree(IDENTITY_TREE_LEVELS);
    it.pk = new PrivateKey(hexBytes(privateKeyHex));
    const [x, y] = it.pk.public().p;
    // AuthClaimFromPubKey: revocation nonce = low 64 bits of Poseidon(X)
    const revNonce = poseidon.hash([x]) & ((1n << 64n) - 1n);
    it.authClaim = Claim.newClaim(AUTH_SCHEMA_HASH, ClaimOptions.withIndexDataInts(x, y), ClaimOptions.withRevocationNonce(revNonce));
    const { hi, hv } = it.authClaim.hiHv();
    await it.clt.add(hi, hv);
    // IDFromState: did:iden3:polygon:mumbai type
    const typ = buildDIDType(DidMethod.Iden3, Blockchain.Polygon, NetworkId.Mumbai);
    it.id = Id.idGenesisFromIdenState(typ, await it.state());
    return it;
  }

  static async fromEthAddress(address) {
    const it = new TestIdentity();
    it.clt = newTree(IDENTITY_TREE_LEVELS);
    it.ret = newTree(IDENTITY_TREE_LEVELS);
    it.rot = newTree(IDENTITY_TREE_LEVELS);
    const typ = buildDIDType(DidMethod.PolygonId, Blockchain.Polygon, NetworkId.Mumbai);
    it.id = new Id(typ, genesisFromEthAddress(hexBytes(address)));
    it.authClaim = Claim.newClaim(AUTH_SCHEMA_HASH);
    return it;
  }

  async state() {
    return poseidon.hash([(await this.clt.root()).bigInt(), (await this.ret.root()).bigInt(), (await this.rot.root()).bigInt()]);
  }

  async roots() {
    return {
      claims: (await this.clt.root()).bigInt().toString(),
      rev: (await this.ret.root()).bigInt().toString(),
      roots: (await this.rot.root()).bigInt().toString(),
    };
  }

  async addClaim(claim) {
    const { hi, hv } = claim.hiHv();
    await this.clt.add(hi, hv);
  }

  async claimMtp(claim) {
    const { proof } = await this.clt.generateProof(claim.hiHv().hi);
    return { siblings: siblings(proof, IDENTITY_TREE_LEVELS), aux: nodeAux(proof) };
  }

  async claimRevMtp(claim) {
    const { proof } = await this.ret.generateProof(claim.getRevocationNonce());
    return { siblings: siblings(proof, IDENTITY_TREE_LEVELS), aux: nodeAux(proof) };
  }

  signClaim(claim) {
    const { hi, hv } = claim.hiHv();
    return this.pk.signPoseidon(poseidon.hash([hi, hv]));
  }

  sign(challenge) {
    return this.pk.signPoseidon(challenge);
  }

  idHash() {
    return poseidon.hash([this.id.bigInt()]);
  }
}

/** DefaultUserClaim: schema ce6bb12c..., subject in i_1, `value` (default 10) in i_2, expiring 1669884010, nonce 1. */
function defaultUserClaim(subject, value = 10n) {
  return Claim.newClaim(
    new SchemaHash(hexBytes('ce6bb12c96bfd1544c02c289c6b4b987')),
    ClaimOptions.withIndexId(subject),
    ClaimOptions.withIndexData(ElemBytes.fromInt(value), new ElemBytes()),
    ClaimOptions.withExpirationDate(new Date(1669884010 * 1000)),
    ClaimOptions.withRevocationNonce(1n),
  );
}

/**
 * generateTestDataWithOperatorAndRevCheck of credentials/v3 (onChain false) and credentials/onchain/v3
 * (onChain true), non-merklized claims only. Returns the inputs object.
 */
export async function nonMerklizedInputs(opts) {
  const {
    onChain,
    isUserIDProfile = false,
    isSubjectIDProfile = false,
    linkNonce = '0',
    nullifierSessionID = '0',
    operator = OP.EQ,
    value = ['10'],
    isRevoked = false,
    isRevocationChecked = 1,
    isZeroSubjClaim = false,
    proofType,
    isBJJAuthEnabled = 1,
  } = opts;

  const valueArraySize = value.length;
  const valueInput = padStrings(value, 64);

  const user = onChain && isBJJAuthEnabled !== 1 ? await TestIdentity.fromEthAddress(ETH_ADDRESS) : await TestIdentity.fromKey(USER_PK);
  const issuer = await TestIdentity.fromKey(ISSUER_PK);

  const nonce = isUserIDProfile ? 10n : 0n;
  const nonceSubject = isSubjectIDProfile ? 999n : 0n;
  const subjectID = isSubjectIDProfile ? Id.profileId(user.id, nonceSubject) : user.id;

  const claim = defaultUserClaim(subjectID, isZeroSubjClaim ? 0n : 10n);

  if (isRevoked) await issuer.ret.add(claim.getRevocationNonce(), 0n);

  const zero40 = padStrings([], 40);
  let issuerPart;
  if (proofType === 'sig') {
    const claimSig = issuer.signClaim(claim);
    const authRev = await issuer.claimRevMtp(issuer.authClaim);
    const roots = await issuer.roots();
    issuerPart = {
      issuerClaimMtp: zero40,
      issuerClaimClaimsTreeRoot: '0',
      issuerClaimRevTreeRoot: '0',
      issuerClaimRootsTreeRoot: '0',
      issuerClaimIdenState: '0',
      issuerClaimSignatureR8x: claimSig.R8[0].toString(),
      issuerClaimSignatureR8y: claimSig.R8[1].toString(),
      issuerClaimSignatureS: claimSig.S.toString(),
      issuerAuthClaim: claimJson(issuer.authClaim),
      // The Go generator passes the auth claim's revocation-tree siblings as both proofs (both all
      // zero: the issuer's trees hold only the auth claim).
      issuerAuthClaimMtp: authRev.siblings,
      issuerAuthClaimNonRevMtp: authRev.siblings,
      issuerAuthClaimNonRevMtpAuxHi: authRev.aux.key,
      issuerAuthClaimNonRevMtpAuxHv: authRev.aux.value,
      issuerAuthClaimNonRevMtpNoAux: authRev.aux.noAux,
      issuerAuthClaimsTreeRoot: roots.claims,
      issuerAuthRevTreeRoot: roots.rev,
      issuerAuthRootsTreeRoot: roots.roots,
      issuerAuthState: (await issuer.state()).toString(),
      proofType: '1',
    };
  } else {
    await issuer.addClaim(claim);
    const mtp = await issuer.claimMtp(claim);
    const roots = await issuer.roots();
    issuerPart = {
      issuerClaimMtp: mtp.siblings,
      issuerClaimClaimsTreeRoot: roots.claims,
      issuerClaimRevTreeRoot: roots.rev,
      issuerClaimRootsTreeRoot: roots.roots,
      issuerClaimIdenState: (await issuer.state()).toString(),
      issuerClaimSignatureR8x: '0',
      issuerClaimSignatureR8y: '0',
      issuerClaimSignatureS: '0',
      issuerAuthClaim: claimJson(new Claim()),
      issuerAuthClaimMtp: zero40,
      issuerAuthClaimNonRevMtp: zero40,
      issuerAuthClaimNonRevMtpAuxHi: '0',
      issuerAuthClaimNonRevMtpAuxHv: '0',
      issuerAuthClaimNonRevMtpNoAux: '0',
      issuerAuthClaimsTreeRoot: '0',
      issuerAuthRevTreeRoot: '0',
      issuerAuthRootsTreeRoot: '0',
      issuerAuthState: '0',
      proofType: '2',
    };
  }
  const nonRev = await issuer.claimRevMtp(claim);
  const issuerRoots = await issuer.roots();

  const inputs = { requestID: onChain ? '41' : '23', userGenesisID: user.id.bigInt().toString(), profileNonce: nonce.toString(), claimSubjectProfileNonce: nonceSubject.toString() };

  if (onChain) {
    const gis = newTree(GIST_LEVELS);
    await gis.add(1n, 1n);
    const userRoots = await user.roots();
    let auth;
    if (isBJJAuthEnabled === 1) {
      const challenge = 12345n;
      const authInc = await user.claimMtp(user.authClaim);
      const authNonRev = await user.claimRevMtp(user.authClaim);
      const sig = user.sign(challenge);
      const { proof } = await gis.generateProof(user.idHash());
      const gistAux = nodeAux(proof);
      auth = {
        authClaimIncMtp: authInc.siblings,
        authClaimNonRevMtp: authNonRev.siblings,
        authClaimNonRevMtpAuxHi: authNonRev.aux.key,
        authClaimNonRevMtpAuxHv: authNonRev.aux.value,
        authClaimNonRevMtpNoAux: authNonRev.aux.noAux,
        challenge: challenge.toString(),
        challengeSignatureR8x: sig.R8[0].toString(),
        challengeSignatureR8y: sig.R8[1].toString(),
        challengeSignatureS: sig.S.toString(),
        gistRoot: (await gis.root()).bigInt().toString(),
        gistMtp: siblings(proof, GIST_LEVELS),
        gistMtpAuxHi: gistAux.key,
        gistMtpAuxHv: gistAux.value,
        gistMtpNoAux: gistAux.noAux,
      };
    } else {
      // challenge: the address bytes read little-endian (merkletree.SwapEndianness)
      const challenge = BigInt('0x' + Buffer.from(hexBytes(ETH_ADDRESS)).reverse().toString('hex'));
      auth = {
        authClaimIncMtp: padStrings([], IDENTITY_TREE_LEVELS),
        authClaimNonRevMtp: padStrings([], IDENTITY_TREE_LEVELS),
        authClaimNonRevMtpAuxHi: '0',
        authClaimNonRevMtpAuxHv: '0',
        authClaimNonRevMtpNoAux: '0',
        challenge: challenge.toString(),
        challengeSignatureR8x: '0',
        challengeSignatureR8y: '0',
        challengeSignatureS: '0',
        gistRoot: '0',
        gistMtp: padStrings([], GIST_LEVELS),
        gistMtpAuxHi: '0',
        gistMtpAuxHv: '0',
        gistMtpNoAux: '0',
      };
    }
    Object.assign(inputs, {
      authClaim: claimJson(user.authClaim),
      authClaimIncMtp: auth.authClaimIncMtp,
      authClaimNonRevMtp: auth.authClaimNonRevMtp,
      authClaimNonRevMtpAuxHi: auth.authClaimNonRevMtpAuxHi,
      authClaimNonRevMtpAuxHv: auth.authClaimNonRevMtpAuxHv,
      authClaimNonRevMtpNoAux: auth.authClaimNonRevMtpNoAux,
      challenge: auth.challenge,
      challengeSignatureR8x: auth.challengeSignatureR8x,
      challengeSignatureR8y: auth.challengeSignatureR8y,
      challengeSignatureS: auth.challengeSignatureS,
      userClaimsTreeRoot: userRoots.claims,
      userRevTreeRoot: userRoots.rev,
      userRootsTreeRoot: userRoots.roots,
      userState: (await user.state()).toString(),
      gistRoot: auth.gistRoot,
      gistMtp: auth.gistMtp,
      gistMtpAuxHi: auth.gistMtpAuxHi,
      gistMtpAuxHv: auth.gistMtpAuxHv,
      gistMtpNoAux: auth.gistMtpNoAux,
    });
  }

  Object.assign(inputs, {
    issuerID: issuer.id.bigInt().toString(),
    issuerClaim: claimJson(claim),
    issuerClaimMtp: issuerPart.issuerClaimMtp,
    issuerClaimClaimsTreeRoot: issuerPart.issuerClaimClaimsTreeRoot,
    issuerClaimRevTreeRoot: issuerPart.issuerClaimRevTreeRoot,
    issuerClaimRootsTreeRoot: issuerPart.issuerClaimRootsTreeRoot,
    issuerClaimIdenState: issuerPart.issuerClaimIdenState,
    isRevocationChecked,
    issuerClaimNonRevClaimsTreeRoot: issuerRoots.claims,
    issuerClaimNonRevRevTreeRoot: issuerRoots.rev,
    issuerClaimNonRevRootsTreeRoot: issuerRoots.roots,
    issuerClaimNonRevState: (await issuer.state()).toString(),
    issuerClaimNonRevMtp: nonRev.siblings,
    issuerClaimNonRevMtpAuxHi: nonRev.aux.key,
    issuerClaimNonRevMtpAuxHv: nonRev.aux.value,
    issuerClaimNonRevMtpNoAux: nonRev.aux.noAux,
    claimSchema: CLAIM_SCHEMA,
    claimPathMtp: padStrings([], CLAIM_LEVELS),
    claimPathMtpNoAux: '0',
    claimPathMtpAuxHi: '0',
    claimPathMtpAuxHv: '0',
    claimPathKey: '0',
    claimPathValue: '0',
    operator,
    slotIndex: 2,
    timestamp: TIMESTAMP,
    value: valueInput,
    valueArraySize,
    issuerClaimSignatureR8x: issuerPart.issuerClaimSignatureR8x,
    issuerClaimSignatureR8y: issuerPart.issuerClaimSignatureR8y,
    issuerClaimSignatureS: issuerPart.issuerClaimSignatureS,
    issuerAuthClaim: issuerPart.issuerAuthClaim,
    issuerAuthClaimMtp: issuerPart.issuerAuthClaimMtp,
    issuerAuthClaimNonRevMtp: issuerPart.issuerAuthClaimNonRevMtp,
    issuerAuthClaimNonRevMtpAuxHi: issuerPart.issuerAuthClaimNonRevMtpAuxHi,
    issuerAuthClaimNonRevMtpAuxHv: issuerPart.issuerAuthClaimNonRevMtpAuxHv,
    issuerAuthClaimNonRevMtpNoAux: issuerPart.issuerAuthClaimNonRevMtpNoAux,
    issuerAuthClaimsTreeRoot: issuerPart.issuerAuthClaimsTreeRoot,
    issuerAuthRevTreeRoot: issuerPart.issuerAuthRevTreeRoot,
    issuerAuthRootsTreeRoot: issuerPart.issuerAuthRootsTreeRoot,
    issuerAuthState: issuerPart.issuerAuthState,
    proofType: issuerPart.proofType,
    linkNonce,
    verifierID: VERIFIER_ID,
    nullifierSessionID,
  });
  if (onChain) inputs.isBJJAuthEnabled = isBJJAuthEnabled;
  return inputs;
}
