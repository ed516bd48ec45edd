/**
 * An example input and result of every operation a route serves, for the OpenAPI documents (the
 * request body, the query and path parameters, the success answer). test/http/openapi.test.ts
 * checks each against the operation's own schemas, so an example cannot drift from what the
 * server accepts and answers.
 */

export interface OperationExample {
  /** The operation's whole input (a route shows the part it takes). */
  input?: Record<string, unknown>;
  result?: unknown;
}

/** The bundled contexts of the sample passport (src/iden3/documents.ts, src/sd/contextUrls.ts). */
const PASSPORT_CONTEXT_URL = 'https://schemas.vc.example/iden3/passport/v1/passport.jsonld';
const SD_PASSPORT_CONTEXT_URL = 'https://vc.example/contexts/sd-passport/v1';
const SD_PASSPORT_V2_CONTEXT_URL = 'https://vc.example/contexts/sd-passport/v2';

const HOLDER_DID = 'did:polygonid:polygon:local:2qKc3ns1pKmZyrT4HY8ZumXpWabNbHNXwnXBXzsvRn';
const ISSUER_DID = 'did:polygonid:polygon:local:2qFpPHotk6oyaX1fcrpQFT4BMnmg8YszUwxYtaoGoe';
const VERIFIER_DID_EXAMPLE = 'did:polygonid:polygon:local:2qHtzzxS7uazdumnyZEdf74CNo3MptdW6ytxxwbPMW';
const BBS_DID = 'did:key:zUC7Ef7qTzVLYV3uCTbvFKExa5KxYJ2kXe3g9zDgkeM2Ds8tPKX4sY7NRVwvw2iQpbdpmUPpBsEvYkBeZVFDAW8g2Zh';
const BBS_2023_DID = 'did:key:zUC7HJ5zWJnm4T4Yr1Hk7LxK1m6xkMJr6wvgSKTMXmTpQMFPxkFvGxb4pYvAWkVqo5VSwKmNuDm2XXbTSyMFvJNV2cUAXj';
const EDDSA_DID = 'did:key:z6MkrbMAHAhspFHX3ZdSpfnaDE67UAQbfb6g5aFaCyY7CPzs';
const ECDSA_P256_DID = 'did:key:zDnaeYZB7LGBxKMqEDqiwguXnhxKBQGro745Z5AZTjduA1DdC';
const ECDSA_P384_DID = 'did:key:z82Lko55nfaH8RY49q1dPGRA9zCxjEFSbPQvm2WKncmQuHX1j6Djk2kATm42YKKxi3xrWW1';
const HOLDER_KEY_DID = 'did:key:z6MkvDqGT54cXesYGvABpF1UapVNwjCqRcafi4Px6Thv5T3Z';
const ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** A did:key as the Multikey verification method of its key. */
function multikey(did: string): { did: string; verificationMethod: string; type: 'Multikey'; publicKeyMultibase: string } {
  const multibase = did.slice('did:key:'.length);
  return { did, verificationMethod: `${did}#${multibase}`, type: 'Multikey', publicKeyMultibase: multibase };
}
const TX = '0x5f2c4c3b1e0a9d8f7e6d5c4b3a29180716253443526170f8e9dacbbcad9e8f70';
const STATE = '0x0b6cd8fa8a4fb3dd0b8c5cc38ecc8b1ec5f9e2d5c6b9c2e1a7a3b3b54de2c91a';

const PASSPORT_SUBJECT = {
  name: 'Alice Example',
  passportNumber: 'X1234567',
  nationality: 'NLD',
  birthDate: 19900101,
  customerReference: '3f0c9a3e-6d0b-4c52-9a41-7f1e8b2d5c10',
  expiryDate: 20340101,
  publicAddress: '0x2a9c6b1e4f8d3a7b5c0e9f1d2b4a6c8e0f1a3b5c',
};

const DID_OBJECT = {
  method: 'polygonid',
  id: 'polygon:local:2qKc3ns1pKmZyrT4HY8ZumXpWabNbHNXwnXBXzsvRn',
  idStrings: ['polygon', 'local', '2qKc3ns1pKmZyrT4HY8ZumXpWabNbHNXwnXBXzsvRn'],
  params: [],
  path: '',
  pathSegments: [],
  query: '',
  fragment: '',
};

const CREDENTIAL_REQUEST = {
  id: 1,
  circuitId: 'credentialAtomicQueryMTPV2OnChain',
  query: { allowedIssuers: ['*'], type: 'PassportCredential', context: PASSPORT_CONTEXT_URL, credentialSubject: { birthDate: { $lt: 20010101 } } },
};

const PBQ_CREDENTIAL = {
  id: 'urn:uuid:7d3c1c52-9c1e-4f6e-8a55-0d5b1f0c2a11',
  '@context': ['https://www.w3.org/2018/credentials/v1', 'https://schema.iden3.io/core/jsonld/iden3proofs.jsonld', PASSPORT_CONTEXT_URL],
  type: ['VerifiableCredential', 'PassportCredential'],
  credentialSubject: { id: HOLDER_DID, type: 'PassportCredential', ...PASSPORT_SUBJECT },
  issuer: ISSUER_DID,
  issuanceDate: '2025-01-01T00:00:00Z',
  credentialSchema: { id: 'https://schemas.vc.example/iden3/passport/v1/passport.json', type: 'JsonSchema2023' },
  credentialStatus: { id: 'http://127.0.0.1:3000/node', type: 'Iden3ReverseSparseMerkleTreeProof', revocationNonce: 1234567 },
  proof: [{ type: 'Iden3SparseMerkleTreeProof' }],
};

const BBS_CREDENTIAL = {
  '@context': ['https://www.w3.org/2018/credentials/v1', SD_PASSPORT_CONTEXT_URL, 'https://w3id.org/security/bbs/v1'],
  id: 'urn:uuid:0b7e2f7c-4d8e-4a0f-9d6f-3c1d2e5a7b90',
  type: ['VerifiableCredential', 'PassportCredential'],
  issuer: BBS_DID,
  issuanceDate: '2025-01-01T00:00:00Z',
  credentialSubject: { id: 'did:example:alice', type: 'Passport', ...PASSPORT_SUBJECT },
  proof: {
    type: 'BbsBlsSignature2020',
    created: '2025-01-01T00:00:00Z',
    verificationMethod: `${BBS_DID}#${BBS_DID.slice('did:key:'.length)}`,
    proofPurpose: 'assertionMethod',
    proofValue: 'kTTbA3pmDa6Qia/JkOnIXDLmoBz3vsi7L5t3DWySI/VLmBqleJ/Tbus5RoyiDERDBEh5rnACXlnOqJ/U8yFQFtcp/mBCc2FtKNPHae9jKIv1dm9K9QK1F3GI1AwyGoUfjLWrkGDObO1ouNAhpEd0+et+qw==',
  },
};

const DERIVED_VC = {
  '@context': BBS_CREDENTIAL['@context'],
  id: BBS_CREDENTIAL.id,
  type: BBS_CREDENTIAL.type,
  issuer: BBS_DID,
  issuanceDate: '2025-01-01T00:00:00Z',
  credentialSubject: { id: 'did:example:alice', type: 'Passport', name: 'Alice Example', nationality: 'NLD' },
  proof: {
    type: 'BbsBlsSignatureProof2020',
    created: '2025-01-01T00:00:00Z',
    verificationMethod: BBS_CREDENTIAL.proof.verificationMethod,
    proofPurpose: 'assertionMethod',
    proofValue: 'ABkB/wbvt6213E9eJ+aRGbdG1IIQtx+IdAXALLNg2a5ENSGOIBxRGSoArKXwD/diieDWG6+0q8CWh7CViUqOOdEhYp/DonzmjoWbWECalE6x/qtyBeE7W9TJTXyK/yW6JKSKPz2ht4J0XLV84DZrxMF4HMrY7rFHvdE4xV7ULeC9vNmAmwYAqJfNwY94FG2erg2K2cg0AAAAdLfutjMuBO0JnrlRW6O6TheATv0xZZHP9kf1AYqPaxsYg0bq2XYzkp+tzMBq1rH3tgAAAAIDTzuPazvFHijdzuAgYg+Sg0ziF+Gw5Bz8r2cuvuSg1yKWqW1dM5GhGn6SZUpczTXuZuKGlo4cZrwbIg9wf4lBs3kQwWULRtQUXki9izmznt4Go98X/ElOguLLum4S78Gehe1ql6CXD1zS5PiDXjDzAAAACWz/sbigWpPmUqNA8YUczOuzBUvzmkpjVyL9aqf1e7rSZmN8CNa6dTGOzgKYgDGoIbSQR8EN8Ld7kpTIAdi4YvNZwEYlda/BR6oSrFCquafz7s/jeXyOYMsiVC53Zls9KEg64tG7n90XuZOyMk9RAdcxYb+j5sYc6xgwbGdRc8Q87dFUtjGpWtyRNfYIHOHTuhQ=',
    nonce: 'c2VydmVyLWlzc3VlZC1ub25jZQ',
  },
};

const BBS_2023_CREDENTIAL = {
  '@context': ['https://www.w3.org/ns/credentials/v2', { '@vocab': 'https://vc.example/vocab#' }],
  type: ['VerifiableCredential'],
  issuer: BBS_2023_DID,
  validFrom: '2025-01-01T00:00:00Z',
  credentialSubject: { id: 'did:example:alice', name: 'Alice Example', nationality: 'NLD' },
  proof: {
    type: 'DataIntegrityProof',
    cryptosuite: 'bbs-2023',
    verificationMethod: `${BBS_2023_DID}#${BBS_2023_DID.slice('did:key:'.length)}`,
    proofPurpose: 'assertionMethod',
    proofValue: 'u2V0ChVhQjYs6ab1EVq6JPXXmwVhbXJGsRPPYmaH9MmPXHkBNkZWDkxXjJ6B3PRJvnt5bVdXqGLw0Jk1G6e6yQQ',
  },
};

const EDDSA_CREDENTIAL = {
  '@context': ['https://www.w3.org/ns/credentials/v2', SD_PASSPORT_V2_CONTEXT_URL],
  id: 'urn:uuid:3c9a1f0e-5b7d-4e2a-8c6f-1d0e9b8a7c65',
  type: ['VerifiableCredential', 'PassportCredential'],
  issuer: EDDSA_DID,
  validFrom: '2025-01-01T00:00:00Z',
  credentialSubject: { id: HOLDER_KEY_DID, name: 'Alice Example', nationality: 'NLD' },
  proof: {
    type: 'DataIntegrityProof',
    created: '2025-01-01T00:00:00Z',
    verificationMethod: multikey(EDDSA_DID).verificationMethod,
    cryptosuite: 'eddsa-rdfc-2022',
    proofPurpose: 'assertionMethod',
    proofValue: 'z4gA6zmSuxz4mGFZjDHvM2Hg9rzN5vwJqL8H3jWj4LjtLWtxHsCyd3ETdHoHsusoDFroUpi3krP72h2Kk3FETz9k6',
  },
};

const UNSIGNED_PRESENTATION = {
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  type: ['VerifiablePresentation'],
  holder: HOLDER_KEY_DID,
  verifiableCredential: [EDDSA_CREDENTIAL],
};

const PRESENTATION = {
  ...UNSIGNED_PRESENTATION,
  proof: {
    type: 'DataIntegrityProof',
    created: '2025-01-01T00:05:00Z',
    verificationMethod: multikey(HOLDER_KEY_DID).verificationMethod,
    cryptosuite: 'eddsa-rdfc-2022',
    proofPurpose: 'authentication',
    challenge: 'AYAAAZQ8dXcA3mfKzH0S2pW6o1e2b3c4d5e6f7a8b9c0d1e2',
    domain: 'verifier.example',
    proofValue: 'z4tYGsPZyTiXyoktWQ13ofid1NSnUw5PH2buhvmSyRToHvxBA2dkn2hFh9be6zY282wkHcHojNnEAcVSDn5W8Znp5',
  },
};

const UNSIGNED_CREDENTIAL = {
  '@context': BBS_2023_CREDENTIAL['@context'],
  type: BBS_2023_CREDENTIAL.type,
  issuer: BBS_2023_DID,
  validFrom: BBS_2023_CREDENTIAL.validFrom,
  credentialSubject: BBS_2023_CREDENTIAL.credentialSubject,
};

const STATUS_LIST_URL = 'http://127.0.0.1:3000/status-lists/revocation-1';

/** A served status list: signed by the issuer of the credentials it is about (a derived bbs-2023 proof disclosing everything). */
const STATUS_LIST_CREDENTIAL = {
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  id: STATUS_LIST_URL,
  type: ['VerifiableCredential', 'BitstringStatusListCredential'],
  issuer: BBS_2023_DID,
  validFrom: '2025-01-01T00:00:00Z',
  credentialSubject: { id: `${STATUS_LIST_URL}#list`, type: 'BitstringStatusList', statusPurpose: 'revocation', encodedList: 'uH4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA' },
  proof: { ...BBS_2023_CREDENTIAL.proof, proofValue: 'u2V0DhVhQjYs6ab1EVq6JPXXmwVhbXJGsRPPYmaH9MmPXHkBNkZWDkxXjJ6B3PRJvnt5bVdXqGLw0Jk1G6e6yQQ' },
};

/** What the holder's store says about a held credential (holder.list, holder.import, ...). */
const HELD_SUMMARY = {
  id: PBQ_CREDENTIAL.id,
  kind: 'iden3',
  type: 'PassportCredential',
  types: PBQ_CREDENTIAL.type,
  issuer: ISSUER_DID,
  subject: HOLDER_DID,
  credentialId: PBQ_CREDENTIAL.id,
  issuedAt: PBQ_CREDENTIAL.issuanceDate,
  storedAt: '2025-01-01T00:00:05.000Z',
  source: 'imported',
};

/** An iden3comm authorization request as POST /auth-requests makes it (vc verifier auth-request). */
const AUTH_REQUEST = {
  id: '7f38a193-0918-4a48-9fac-36adfdb8b542',
  thid: '7f38a193-0918-4a48-9fac-36adfdb8b542',
  from: VERIFIER_DID_EXAMPLE,
  typ: 'application/iden3comm-plain-json',
  type: 'https://iden3-communication.io/authorization/1.0/request',
  body: {
    accept: ['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV2;alg=groth16'],
    reason: 'age check',
    message: '',
    callbackUrl: 'http://127.0.0.1:4000/callback?sessionId=7f38a193-0918-4a48-9fac-36adfdb8b542',
    scope: [
      {
        id: 239136294061344,
        circuitId: 'credentialAtomicQueryV3',
        query: { allowedIssuers: ['*'], type: 'PassportCredential', context: PASSPORT_CONTEXT_URL, credentialSubject: { birthDate: {} } },
      },
      {
        id: 87452180337991,
        circuitId: 'credentialAtomicQueryV3',
        query: { allowedIssuers: ['*'], type: 'PassportCredential', context: PASSPORT_CONTEXT_URL, credentialSubject: { nationality: { $in: ['FRA', 'DEU'] } } },
      },
    ],
  },
  created_time: 1735689600,
  expires_time: 1735693200,
};
/** A JWZ token (shortened: header.payload.proof, each base64url). */
const JWZ_EXAMPLE =
  'eyJhbGciOiJncm90aDE2IiwiY2lyY3VpdElkIjoiYXV0aFYyIiwiY3JpdCI6WyJjaXJjdWl0SWQiXSwidHlwIjoiYXBwbGljYXRpb24vaWRlbjMtemtwLWpzb24ifQ.eyJpZCI6IjEifQ.eyJwcm9vZiI6e30sInB1Yl9zaWduYWxzIjpbXX0';
const AUTH_VERIFIED = {
  verified: true,
  request: AUTH_REQUEST.id,
  from: HOLDER_DID,
  proofs: [
    { id: 239136294061344, circuitId: 'credentialAtomicQueryV3-16-16-64', issuer: ISSUER_DID, type: 'PassportCredential', field: 'birthDate', operator: '$sd', disclosed: '19900101' },
    { id: 87452180337991, circuitId: 'credentialAtomicQueryV3-16-16-64', issuer: ISSUER_DID, type: 'PassportCredential', field: 'nationality', operator: '$in' },
  ],
  disclosed: { birthDate: '19900101' },
};

/** A contract-invoke-request as POST /contract-requests makes it (vc verifier contract-request). */
const CONTRACT_REQUEST = {
  id: '0b6c3f8e-2d41-4c7a-9e55-8f1a2b3c4d5e',
  thid: '0b6c3f8e-2d41-4c7a-9e55-8f1a2b3c4d5e',
  typ: 'application/iden3comm-plain-json',
  type: 'https://iden3-communication.io/proofs/1.0/contract-invoke-request',
  // The UniversalVerifier's DID (its verifierID, from its address).
  from: 'did:iden3:privado:main:2SZDsdYordSGoMEGQGaRFEQCnjwuZ9N1JABLdHLpKc',
  body: {
    reason: 'age check',
    transaction_data: { contract_address: '0x5FC8d32690cc91D4c39d9d3abcBD16989F875707', method_id: '06c86a91', chain_id: 152, network: 'polygon-local' },
    scope: [
      {
        id: 172638954210137,
        circuitId: 'credentialAtomicQueryV3OnChain',
        query: { allowedIssuers: ['*'], type: 'PassportCredential', context: PASSPORT_CONTEXT_URL, credentialSubject: { birthDate: { $lt: 20010101 } } },
      },
    ],
    accept: ['iden3comm/v1;env=application/iden3comm-plain-json'],
  },
  created_time: 1735689600,
  expires_time: 1735693200,
};

export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  'pbq.contractRequest': { input: { id: ['172638954210137'], reason: 'age check' }, result: CONTRACT_REQUEST },
  'pbq.authRequest': {
    input: {
      queries: AUTH_REQUEST.body.scope.map((item) => item.query),
      reason: 'age check',
      callback: AUTH_REQUEST.body.callbackUrl,
      expires: 3600,
    },
    result: AUTH_REQUEST,
  },
  'pbq.authSession': { input: { id: AUTH_REQUEST.id }, result: AUTH_REQUEST },
  'pbq.authCallback': { input: { sessionId: AUTH_REQUEST.id, jwz: JWZ_EXAMPLE }, result: AUTH_VERIFIED },
  'pbq.authRespond': {
    input: { request: `iden3comm://?request_uri=http://127.0.0.1:4000/auth-requests/${AUTH_REQUEST.id}`, post: true },
    result: {
      token: JWZ_EXAMPLE,
      request: AUTH_REQUEST.id,
      thid: AUTH_REQUEST.thid,
      from: HOLDER_DID,
      to: AUTH_REQUEST.from,
      // One credential may answer several proof requests.
      scope: AUTH_REQUEST.body.scope.map((item) => ({ id: item.id, circuitId: 'credentialAtomicQueryV3-16-16-64', credential: 'urn:uuid:4c6a2f3e-6f0a-4d2b-9b1e-2f1d3c4b5a69' })),
      posted: { url: AUTH_REQUEST.body.callbackUrl, status: 200, body: AUTH_VERIFIED },
    },
  },
  'pbq.agentFetch': {
    input: { jwz: JWZ_EXAMPLE },
    result: {
      id: '5e2c7a90-3b1d-4f6e-a8c2-9d0b1e4f7a36',
      typ: 'application/iden3comm-plain-json',
      type: 'https://iden3-communication.io/credentials/1.0/issuance-response',
      thid: '2b8f0c1d-6e4a-4b7f-9c3d-1a5e7f9b0d24',
      from: ISSUER_DID,
      to: HOLDER_DID,
      body: { credential: PBQ_CREDENTIAL },
    },
  },
  'pbq.authStatus': {
    input: { id: AUTH_REQUEST.id },
    result: { id: AUTH_REQUEST.id, status: 'verified', from: HOLDER_DID, disclosed: AUTH_VERIFIED.disclosed, proofs: AUTH_VERIFIED.proofs, updatedAt: '2025-01-01T00:00:05.000Z' },
  },
  'system.health': {
    input: { role: 'issuer' },
    result: { status: 'ok', role: 'issuer', version: '0.1.0', chain: { embedded: true, chainId: 152, reachable: true, state: 'running' }, circuits: { present: true } },
  },
  'circuits.status': {
    input: {},
    result: { development: true, upToDate: true, circuits: [{ id: 'credentialAtomicQueryMTPV2OnChain', complete: true, constraints: 180311 }] },
  },
  'chain.env': {
    input: {},
    result: { CHAIN_ID: '152', NETWORK_NAME: 'local', RPC_URL: 'http://127.0.0.1:8545', STATE_CONTRACT_ADDRESS: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
  },
  'pbq.issuerDid': { input: {}, result: { payload: { ...DID_OBJECT, id: ISSUER_DID.slice('did:polygonid:'.length), idStrings: ISSUER_DID.split(':').slice(2) }, did_String: ISSUER_DID, created: true } },
  'pbq.holderDid': { input: { new: false }, result: { message: 'did successfully created', did: DID_OBJECT, did_String: HOLDER_DID, created: true } },
  'pbq.issue': {
    input: { did: HOLDER_DID, type: 'PassportCredential', subject: PASSPORT_SUBJECT },
    result: { message: 'credential successfully generated', credential: PBQ_CREDENTIAL },
  },
  'pbq.publish': { input: {}, result: { issuer: ISSUER_DID, credentials: [{ message: 'credential successfully generated', credential: PBQ_CREDENTIAL }], txId: TX, state: STATE } },
  'pbq.revoke': { input: { nonce: 1234567 }, result: { message: 'credential successfully revoked', issuer: ISSUER_DID, nonce: 1234567, txId: TX, state: STATE } },
  'pbq.issued': {
    input: { id: PBQ_CREDENTIAL.id },
    result: {
      issuer: ISSUER_DID,
      credentials: [{ id: PBQ_CREDENTIAL.id, type: PBQ_CREDENTIAL.type, holder: HOLDER_DID, issuanceDate: PBQ_CREDENTIAL.issuanceDate, revocationNonce: 1234567, revoked: false }],
    },
  },
  'pbq.request': {
    input: { type: 'PassportCredential', context: PASSPORT_CONTEXT_URL, field: 'birthDate', op: '$lt', value: 20010101, allowedIssuers: ['*'] },
    result: CREDENTIAL_REQUEST,
  },
  'pbq.requestStatus': {
    input: { request: 1, address: ADDRESS },
    result: { requestId: 1, address: ADDRESS, verifier: '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9', isVerified: true, validatorVersion: '2.0.1', timestamp: 1735689600 },
  },
  'pbq.proveSubmit': {
    input: { verifiableCredential: PBQ_CREDENTIAL, credentialRequest: CREDENTIAL_REQUEST },
    result: { message: 'proof submitted', requestId: 1, txId: TX, address: ADDRESS },
  },
  'holder.list': {
    input: { type: 'PassportCredential', issuer: ISSUER_DID, kind: 'iden3' },
    result: { credentials: [HELD_SUMMARY] },
  },
  'holder.show': { input: { id: PBQ_CREDENTIAL.id }, result: { ...HELD_SUMMARY, credential: PBQ_CREDENTIAL } },
  'holder.delete': { input: { id: PBQ_CREDENTIAL.id }, result: { deleted: true, ...HELD_SUMMARY } },
  'holder.import': { input: { credential: PBQ_CREDENTIAL }, result: { imported: [{ ...HELD_SUMMARY, alreadyHeld: false }] } },
  'rhs.saveNodes': {
    input: { nodes: [{ hash: '1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff001', children: ['0000000000000000000000000000000000000000000000000000000000000000', '0000000000000000000000000000000000000000000000000000000000000000'] }] },
    result: { status: 'OK', saved: 1 },
  },
  'rhs.readNode': {
    input: { hash: '1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff001' },
    result: { node: { hash: '1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff001', children: ['0000000000000000000000000000000000000000000000000000000000000000', '0000000000000000000000000000000000000000000000000000000000000000'] }, status: 'OK' },
  },
  'pbq.agent': {
    input: {
      id: '3f1d6c1e-7a2b-4c55-9a61-0f2de1b0c9a4',
      typ: 'application/iden3comm-plain-json',
      type: 'https://iden3-communication.io/revocation/1.0/request-status',
      thid: '3f1d6c1e-7a2b-4c55-9a61-0f2de1b0c9a4',
      from: 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YAVgP9yhJXZfd8EVqqmk',
      to: 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR',
      body: { revocation_nonce: 3825736591 },
    },
    result: {
      id: '9b0e4d2a-51c7-4e0f-8d3b-6a1f2c9e7b55',
      typ: 'application/iden3comm-plain-json',
      type: 'https://iden3-communication.io/revocation/1.0/status',
      thid: '3f1d6c1e-7a2b-4c55-9a61-0f2de1b0c9a4',
      from: 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR',
      to: 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YAVgP9yhJXZfd8EVqqmk',
      body: {
        issuer: {
          state: '1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff001',
          claimsTreeRoot: '2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70800',
          revocationTreeRoot: '0000000000000000000000000000000000000000000000000000000000000000',
          rootOfRoots: '3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a00',
        },
        mtp: { existence: false, siblings: [] },
      },
    },
  },
  'sd.issue': {
    input: { type: 'PassportCredential', credentialSubject: PASSPORT_SUBJECT, holder: 'did:example:alice', expirationDate: '2030-12-31' },
    result: BBS_CREDENTIAL,
  },
  'sd.issueBbs2023': {
    input: { type: 'PassportCredential', credentialSubject: PASSPORT_SUBJECT, holder: 'did:example:alice', mandatoryPointers: ['/issuer'] },
    result: BBS_2023_CREDENTIAL,
  },
  'sd.issuerKey': {
    input: {},
    result: {
      did: BBS_DID,
      verificationMethod: BBS_CREDENTIAL.proof.verificationMethod,
      type: 'Bls12381G2Key2020',
      publicKeyBase58: 'oqpWYKaZD9M1Kbe94BVXpr8WTdFBNZyKv48cziTiQUeuhm7sBhCABMyYG4kcMrseC68YTFFgyhiNeBKjzdKk9MiRWuLv5H4FFujQsQK2KTAtzU8qTBiZqBHMmnLF4PL7Ytu',
      seedSource: 'generated',
      bbs2023: { did: BBS_2023_DID, verificationMethod: BBS_2023_CREDENTIAL.proof.verificationMethod, type: 'Multikey', publicKeyMultibase: BBS_2023_DID.slice('did:key:'.length) },
      eddsaRdfc2022: multikey(EDDSA_DID),
      ecdsaRdfc2019: { 'P-256': multikey(ECDSA_P256_DID), 'P-384': multikey(ECDSA_P384_DID) },
    },
  },
  'sd.disclose': {
    input: { credentialType: 'PassportCredential', selectiveDisclosureKeys: ['id', 'name', 'nationality'], nonce: 'c2VydmVyLWlzc3VlZC1ub25jZQ' },
    result: { message: 'selective disclosure credential derived', vc: DERIVED_VC },
  },
  'sd.import': { input: { credential: BBS_CREDENTIAL }, result: { stored: true, type: 'PassportCredential', id: BBS_CREDENTIAL.id, issuer: BBS_DID } },
  'sd.nonce': { input: { ttlSeconds: 600 }, result: { nonce: 'c2VydmVyLWlzc3VlZC1ub25jZQ', expiresAt: '2025-01-01T00:10:00.000Z' } },
  'sd.verify': {
    input: { vc: DERIVED_VC, requireNonce: true },
    result: {
      verified: true,
      message: 'the credential is valid',
      checks: [
        { id: 'proof', valid: true },
        { id: 'trusted-issuer', valid: true },
        { id: 'nonce', valid: true },
      ],
    },
  },
  'vcapi.issue': {
    input: { credential: UNSIGNED_CREDENTIAL, options: { mandatoryPointers: ['/issuer'], credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' } } },
    result: {
      verifiableCredential: {
        ...BBS_2023_CREDENTIAL,
        credentialStatus: { id: `${STATUS_LIST_URL}#94567`, type: 'BitstringStatusListEntry', statusPurpose: 'revocation', statusListIndex: '94567', statusListCredential: STATUS_LIST_URL },
      },
    },
  },
  'status.list': { input: { id: 'revocation-1' }, result: STATUS_LIST_CREDENTIAL },
  'status.update': {
    input: { credentialId: `${STATUS_LIST_URL}#94567`, credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' }, status: true },
    result: { message: 'revoked', id: `${STATUS_LIST_URL}#94567`, statusPurpose: 'revocation', statusListIndex: '94567', statusListCredential: STATUS_LIST_URL, set: true, changed: true },
  },
  'vcapi.derive': {
    input: { verifiableCredential: BBS_2023_CREDENTIAL, options: { selectivePointers: ['/credentialSubject/name'] } },
    result: { verifiableCredential: { ...BBS_2023_CREDENTIAL, credentialSubject: { id: 'did:example:alice', name: 'Alice Example' } } },
  },
  'vcapi.verify': {
    input: { verifiableCredential: BBS_2023_CREDENTIAL, options: { checks: ['proof'] } },
    result: { verified: true, checks: ['data-model', 'proof'], warnings: [], errors: [] },
  },
  'vp.holderKey': { input: { keyType: 'Ed25519' }, result: { ...multikey(HOLDER_KEY_DID), keyType: 'Ed25519', cryptosuite: 'eddsa-rdfc-2022' } },
  'vcapi.prove': {
    input: { presentation: UNSIGNED_PRESENTATION, options: { challenge: PRESENTATION.proof.challenge, domain: 'verifier.example' } },
    result: { verifiablePresentation: PRESENTATION },
  },
  'vcapi.verifyPresentation': {
    input: { verifiablePresentation: PRESENTATION, options: { challenge: PRESENTATION.proof.challenge, domain: 'verifier.example' } },
    result: {
      verified: true,
      checks: ['presentation', 'proof-type', 'challenge', 'domain', 'holder', 'proof', 'fresh-challenge'],
      warnings: [],
      errors: [],
      credentialResults: [{ index: 0, verified: true, checks: ['proof-type', 'shape', 'data-model', 'terms', 'proof', 'issuer', 'trusted-issuer', 'validity', 'holder-binding'], errors: [] }],
    },
  },
};
