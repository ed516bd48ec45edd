/**
 * Witness tests of circuits/credentialAtomicQueryMTPV2OnChain.circom. Identities come from the
 * js-sdk IdentityWallet, claims live in the issuer's js-sdk merkle trees, the merklized credential
 * is merklized by @iden3/js-jsonld-merklization, and the circuit inputs are marshalled by the
 * js-sdk's own AtomicQueryMTPV2OnChainInputs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AtomicQueryMTPV2OnChainInputs,
  AtomicQueryMTPV2OnChainPubSignals,
  Operators,
  Query,
  ValueProof,
  byteDecoder,
  byteEncoder,
  calculateQueryHashV2,
  type TreeState,
} from '@0xpolygonid/js-sdk';
import { Claim, ClaimOptions, Id, SchemaHash } from '@iden3/js-iden3-core';
import type { Merklizer } from '@iden3/js-jsonld-merklization';
import { compileCircuit, publicSignals, type CompiledCircuit } from './support/compile.js';
import {
  addClaim,
  claimProof,
  createIdentity,
  createWallets,
  fixtureDocumentLoader,
  Gist,
  merklize,
  passportDocument,
  revocationProof,
  revokeNonce,
  signChallenge,
  treeState,
  type TestIdentity,
  type Wallets,
} from './support/identities.js';
import { validatorQueryHash } from './support/queryHash.js';

// BN254 scalar field: the circuit's field and the bound of every claim slot
const FIELD_PRIME = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const TIMESTAMP = 1_750_000_000; // 2025-06-15
const NOT_EXPIRED = new Date('2100-01-01T00:00:00Z');
const EXPIRED = new Date('2001-01-01T00:00:00Z');
const SLOT_SCHEMA = SchemaHash.newSchemaHashFromInt(0x5c1a55e5_0000_0000_0000_0000_0000_0001n);
const PASSPORT_SCHEMA = SchemaHash.newSchemaHashFromInt(0x9a55_0000_0000_0000_0000_0000_0000_0002n);
const BIRTH_DATE = 19900101n;
const BIG_VALUE = (1n << 253n) + 7n; // above 2^252, still a field element
const PROFILE_NONCE = 5n;
const CHALLENGE = 0xc4a11e49en;
const REQUEST_ID = 77n;

interface World {
  wallets: Wallets;
  user: TestIdentity;
  issuer: TestIdentity;
  stranger: TestIdentity;
  gist: Gist;
  mz: Merklizer;
  mzMissingField: Merklizer;
  claims: Record<
    'slot' | 'merklized' | 'merklizedMissingField' | 'expired' | 'revoked' | 'otherSubject' | 'profileSubject' | 'bigValue' | 'notIssued',
    Claim
  >;
  issuerGenesis: TreeState;
}

let circuit: CompiledCircuit;
let world: World;

async function buildWorld(): Promise<World> {
  const wallets = createWallets();
  const user = await createIdentity(wallets, 1);
  const issuer = await createIdentity(wallets, 2);
  const stranger = await createIdentity(wallets, 3);
  const issuerGenesis = await treeState(wallets, issuer.did);

  const mz = await merklize(passportDocument(user.did, issuer.did));
  const mzMissingField = await merklize(passportDocument(user.did, issuer.did, ['customerReference']));
  // Claims sharing a subject and data would share an index (one leaf); the version tells them apart.
  const slotClaim = (nonce: bigint, ...extra: ReturnType<typeof ClaimOptions.withIndexId>[]) =>
    Claim.newClaim(
      SLOT_SCHEMA,
      ClaimOptions.withIndexDataInts(BIRTH_DATE, 5n),
      ClaimOptions.withRevocationNonce(nonce),
      ClaimOptions.withVersion(Number(nonce)),
      ...extra,
    );

  const claims: World['claims'] = {
    slot: slotClaim(10n, ClaimOptions.withIndexId(user.id), ClaimOptions.withExpirationDate(NOT_EXPIRED)),
    merklized: Claim.newClaim(
      PASSPORT_SCHEMA,
      ClaimOptions.withIndexId(user.id),
      ClaimOptions.withIndexMerklizedRoot((await mz.root()).bigInt()),
      ClaimOptions.withRevocationNonce(11n),
    ),
    merklizedMissingField: Claim.newClaim(
      PASSPORT_SCHEMA,
      ClaimOptions.withValueId(user.id),
      ClaimOptions.withValueMerklizedRoot((await mzMissingField.root()).bigInt()),
      ClaimOptions.withRevocationNonce(12n),
    ),
    expired: slotClaim(13n, ClaimOptions.withIndexId(user.id), ClaimOptions.withExpirationDate(EXPIRED)),
    revoked: slotClaim(14n, ClaimOptions.withIndexId(user.id)),
    otherSubject: slotClaim(15n, ClaimOptions.withIndexId(stranger.id)),
    profileSubject: slotClaim(16n, ClaimOptions.withValueId(Id.profileId(user.id, PROFILE_NONCE))),
    bigValue: Claim.newClaim(
      SLOT_SCHEMA,
      ClaimOptions.withIndexId(user.id),
      ClaimOptions.withValueDataInts(BIG_VALUE, 0n),
      ClaimOptions.withRevocationNonce(17n),
    ),
    notIssued: slotClaim(18n, ClaimOptions.withIndexId(user.id)),
  };
  for (const [name, claim] of Object.entries(claims)) {
    if (name !== 'notIssued') await addClaim(wallets, issuer.did, claim);
  }
  await revokeNonce(wallets, issuer.did, claims.revoked.getRevocationNonce());

  // The GIST knows the issuer and the stranger but not the user, whose state is still genesis.
  const gist = new Gist();
  await gist.publish(issuer.id, (await treeState(wallets, issuer.did)).state);
  await gist.publish(stranger.id, (await treeState(wallets, stranger.did)).state);

  return { wallets, user, issuer, stranger, gist, mz, mzMissingField, claims, issuerGenesis };
}

interface QuerySpec {
  operator: number;
  values?: bigint[];
  slotIndex?: number;
  valueProof?: ValueProof;
}

interface InputOptions {
  user?: TestIdentity;
  profileNonce?: bigint;
  claimSubjectProfileNonce?: bigint;
  skipRevocation?: boolean;
  signedChallenge?: bigint;
  issuerState?: TreeState;
  schema?: SchemaHash;
}

/** The circuit inputs as the js-sdk marshals them for `claim` and `query`. */
async function marshalInputs(claim: Claim, spec: QuerySpec, options: InputOptions = {}): Promise<Record<string, unknown>> {
  const { wallets, issuer, gist } = world;
  const user = options.user ?? world.user;
  const issuerState = await treeState(wallets, issuer.did);
  const userState = await treeState(wallets, user.did);

  const inputs = new AtomicQueryMTPV2OnChainInputs();
  inputs.id = user.id;
  inputs.profileNonce = options.profileNonce ?? 0n;
  inputs.claimSubjectProfileNonce = options.claimSubjectProfileNonce ?? 0n;
  inputs.claim = {
    issuerID: issuer.id,
    claim,
    incProof: { proof: await claimProof(wallets, issuer.did, claim), treeState: options.issuerState ?? issuerState },
    nonRevProof: { proof: await revocationProof(wallets, issuer.did, claim.getRevocationNonce()), treeState: issuerState },
  };
  inputs.skipClaimRevocationCheck = options.skipRevocation ?? false;
  inputs.requestID = REQUEST_ID;
  inputs.currentTimeStamp = TIMESTAMP;
  inputs.authClaim = user.authClaim;
  inputs.authClaimIncMtp = await claimProof(wallets, user.did, user.authClaim);
  inputs.authClaimNonRevMtp = await revocationProof(wallets, user.did, user.authClaim.getRevocationNonce());
  inputs.treeState = userState;
  inputs.gistProof = await gist.proof(user.id);
  inputs.challenge = CHALLENGE;
  inputs.signature = await signChallenge(wallets, user, options.signedChallenge ?? CHALLENGE);

  const query = new Query();
  query.operator = spec.operator;
  query.slotIndex = spec.slotIndex ?? 0;
  query.values = spec.values ?? [];
  if (spec.valueProof) query.valueProof = spec.valueProof;
  inputs.query = query;

  const input = JSON.parse(byteDecoder.decode(inputs.inputsMarshal())) as Record<string, unknown>;
  if (options.schema) input.claimSchema = options.schema.bigInt().toString();
  return input;
}

/** Value proof of a credentialSubject field of a merklized document (existence or not). */
async function fieldProof(mz: Merklizer, field: string): Promise<ValueProof> {
  const path = await mz.resolveDocPath(`credentialSubject.${field}`, { documentLoader: fixtureDocumentLoader as never });
  const { proof, value } = await mz.proof(path);
  const valueProof = new ValueProof();
  valueProof.path = await path.mtEntry();
  valueProof.value = value ? await value.mtEntry() : 0n;
  valueProof.mtp = proof;
  return valueProof;
}

async function witnessSignals(input: Record<string, unknown>): Promise<string[]> {
  return publicSignals(await circuit.calculateWitness(input), 11);
}

/** The witness cannot be computed: some constraint of the statement does not hold. */
async function expectUnsatisfiable(input: Record<string, unknown>): Promise<void> {
  await expect(circuit.calculateWitness(input)).rejects.toThrow(/Assert Failed/);
}

beforeAll(async () => {
  [circuit, world] = await Promise.all([compileCircuit('credentialAtomicQueryMTPV2OnChain'), buildWorld()]);
});

describe('credentialAtomicQueryMTPV2OnChain: public signals', () => {
  it('outputs the signals the validator reads, decodable by the js-sdk, with the query hash the validator expects', async () => {
    const values = [BIRTH_DATE];
    const input = await marshalInputs(world.claims.slot, { operator: Operators.EQ, slotIndex: 2, values });
    const signals = await witnessSignals(input);

    const decoded = new AtomicQueryMTPV2OnChainPubSignals().pubSignalsUnmarshal(byteEncoder.encode(JSON.stringify(signals)));
    const issuerState = await treeState(world.wallets, world.issuer.did);
    expect(decoded.merklized).toBe(0);
    expect(decoded.userID.string()).toBe(world.user.id.string());
    expect(decoded.requestID).toBe(REQUEST_ID);
    expect(decoded.challenge).toBe(CHALLENGE);
    expect(decoded.gistRoot.bigInt()).toBe((await world.gist.proof(world.user.id)).root.bigInt());
    expect(decoded.issuerID.string()).toBe(world.issuer.id.string());
    expect(decoded.issuerClaimIdenState.bigInt()).toBe(issuerState.state.bigInt());
    expect(decoded.isRevocationChecked).toBe(1);
    expect(decoded.issuerClaimNonRevState.bigInt()).toBe(issuerState.state.bigInt());
    expect(decoded.timestamp).toBe(TIMESTAMP);

    const expectedHash = validatorQueryHash({
      schema: SLOT_SCHEMA.bigInt(),
      slotIndex: 2,
      operator: Operators.EQ,
      claimPathKey: 0n,
      // the validator's convention: 1 for non-merklized credentials
      claimPathNotExists: 1,
      values,
    });
    expect(input.claimPathNotExists).toBe(1);
    expect(decoded.circuitQueryHash).toBe(expectedHash);
    expect(calculateQueryHashV2(values, SLOT_SCHEMA, 2, Operators.EQ, '0', '1')).toBe(expectedHash);

    // every R1CS constraint holds for this witness, not only the witness generator's checks
    expect(await circuit.checkConstraints(input)).toBe(true);
  });

  it('outputs the profile id for a profile nonce and accepts a claim issued to a profile', async () => {
    const input = await marshalInputs(
      world.claims.profileSubject,
      { operator: Operators.EQ, slotIndex: 2, values: [BIRTH_DATE] },
      { profileNonce: 9n, claimSubjectProfileNonce: PROFILE_NONCE },
    );
    const signals = await witnessSignals(input);
    expect(signals[1]).toBe(Id.profileId(world.user.id, 9n).bigInt().toString());
  });

  it('binds the merklized query: merklized flag, path key and the hash of the values', async () => {
    const valueProof = await fieldProof(world.mz, 'birthDate');
    const input = await marshalInputs(world.claims.merklized, { operator: Operators.LT, values: [20000101n], valueProof });
    const signals = await witnessSignals(input);
    expect(signals[0]).toBe('1');
    expect(BigInt(signals[2] as string)).toBe(
      validatorQueryHash({
        schema: PASSPORT_SCHEMA.bigInt(),
        slotIndex: 0,
        operator: Operators.LT,
        claimPathKey: valueProof.path,
        claimPathNotExists: 0,
        values: [20000101n],
      }),
    );
  });
});

describe('credentialAtomicQueryMTPV2OnChain: operators on a claim slot', () => {
  const cases: Array<{ name: string; operator: number; holds: bigint[]; fails?: bigint[] }> = [
    { name: '$noop', operator: Operators.NOOP, holds: [] },
    { name: '$eq', operator: Operators.EQ, holds: [BIRTH_DATE], fails: [BIRTH_DATE + 1n] },
    { name: '$lt', operator: Operators.LT, holds: [BIRTH_DATE + 1n], fails: [BIRTH_DATE] },
    { name: '$gt', operator: Operators.GT, holds: [BIRTH_DATE - 1n], fails: [BIRTH_DATE] },
    { name: '$in', operator: Operators.IN, holds: [1n, BIRTH_DATE, 3n], fails: [1n, 2n, 3n] },
    { name: '$nin', operator: Operators.NIN, holds: [1n, 2n, 3n], fails: [4n, BIRTH_DATE] },
    { name: '$ne', operator: Operators.NE, holds: [BIRTH_DATE + 1n], fails: [BIRTH_DATE] },
  ];
  for (const { name, operator, holds, fails } of cases) {
    it(`${name} passes when the query holds${fails ? ' and fails when it does not' : ''}`, async () => {
      await witnessSignals(await marshalInputs(world.claims.slot, { operator, slotIndex: 2, values: holds }));
      if (fails) await expectUnsatisfiable(await marshalInputs(world.claims.slot, { operator, slotIndex: 2, values: fails }));
    });
  }

  it('reads the slot the query names', async () => {
    // slot 3 holds 5, slot 2 the birth date
    await witnessSignals(await marshalInputs(world.claims.slot, { operator: Operators.EQ, slotIndex: 3, values: [5n] }));
    await expectUnsatisfiable(await marshalInputs(world.claims.slot, { operator: Operators.EQ, slotIndex: 3, values: [BIRTH_DATE] }));
  });

  it('compares values above 2^252 as integers, like the js-sdk', async () => {
    const claim = world.claims.bigValue; // slot 6 holds 2^253 + 7
    await witnessSignals(await marshalInputs(claim, { operator: Operators.LT, slotIndex: 6, values: [FIELD_PRIME - 1n] }));
    await witnessSignals(await marshalInputs(claim, { operator: Operators.GT, slotIndex: 6, values: [5n] }));
    await expectUnsatisfiable(await marshalInputs(claim, { operator: Operators.LT, slotIndex: 6, values: [5n] }));
    await expectUnsatisfiable(await marshalInputs(claim, { operator: Operators.GT, slotIndex: 6, values: [FIELD_PRIME - 1n] }));
  });

  it('rejects an operator code the circuit does not define', async () => {
    const input = await marshalInputs(world.claims.slot, { operator: Operators.EQ, slotIndex: 2, values: [BIRTH_DATE] });
    await expectUnsatisfiable({ ...input, operator: 7 });
    await expectUnsatisfiable({ ...input, operator: 9 });
    // The instance the witnesses share, having computed one already, computes the witness a fresh
    // instance (snarkjs.wtns.calculate) computes.
    await circuit.calculateWitness({ ...input, operator: Operators.NOOP });
    expect(await circuit.calculateWitness(input)).toEqual(await circuit.freshWitness(input));
  });
});

describe('credentialAtomicQueryMTPV2OnChain: operators on a merklized path', () => {
  it('$eq, $lt, $gt, $ne hold or fail on the proven birth date', async () => {
    const valueProof = await fieldProof(world.mz, 'birthDate');
    const run = (operator: number, value: bigint) =>
      marshalInputs(world.claims.merklized, { operator, values: [value], valueProof });
    await witnessSignals(await run(Operators.EQ, BIRTH_DATE));
    await expectUnsatisfiable(await run(Operators.EQ, BIRTH_DATE - 1n));
    await witnessSignals(await run(Operators.GT, 19800101n));
    await expectUnsatisfiable(await run(Operators.GT, 20000101n));
    await witnessSignals(await run(Operators.NE, 1n));
    await expectUnsatisfiable(await run(Operators.NE, BIRTH_DATE));
  });

  it('$in and $nin on a string field compare hashed values', async () => {
    const valueProof = await fieldProof(world.mz, 'nationality');
    const { Merklizer } = await import('@iden3/js-jsonld-merklization');
    const hashOf = (text: string) => Merklizer.hashValue('http://www.w3.org/2001/XMLSchema#string', text);
    const allowed = [await hashOf('DEU'), await hashOf('NLD')];
    const others = [await hashOf('DEU'), await hashOf('FRA')];
    await witnessSignals(await marshalInputs(world.claims.merklized, { operator: Operators.IN, values: allowed, valueProof }));
    await expectUnsatisfiable(await marshalInputs(world.claims.merklized, { operator: Operators.IN, values: others, valueProof }));
    await witnessSignals(await marshalInputs(world.claims.merklized, { operator: Operators.NIN, values: others, valueProof }));
    await expectUnsatisfiable(await marshalInputs(world.claims.merklized, { operator: Operators.NIN, values: allowed, valueProof }));
  });

  it('rejects a value that is not the one at the path', async () => {
    const valueProof = await fieldProof(world.mz, 'birthDate');
    valueProof.value = BIRTH_DATE + 1n;
    await expectUnsatisfiable(await marshalInputs(world.claims.merklized, { operator: Operators.EQ, values: [BIRTH_DATE + 1n], valueProof }));
  });

  it('proves a path absent from the document (claimPathNotExists) for a root in the value slot', async () => {
    const valueProof = await fieldProof(world.mzMissingField, 'customerReference');
    expect(valueProof.mtp.existence).toBe(false);
    const input = await marshalInputs(world.claims.merklizedMissingField, { operator: Operators.NOOP, valueProof });
    expect(input.claimPathNotExists).toBe(1);
    const signals = await witnessSignals(input);
    expect(signals[0]).toBe('1');
    // the same exclusion proof does not open the document that has the field
    await expectUnsatisfiable(await marshalInputs(world.claims.merklized, { operator: Operators.NOOP, valueProof }));
  });
});

describe('credentialAtomicQueryMTPV2OnChain: statement checks', () => {
  const eqBirthDate: QuerySpec = { operator: Operators.EQ, slotIndex: 2, values: [BIRTH_DATE] };

  it('fails for a challenge signature that does not match', async () => {
    await expectUnsatisfiable(await marshalInputs(world.claims.slot, eqBirthDate, { signedChallenge: CHALLENGE + 1n }));
  });

  it('fails for a claim that is not in the issuer claims tree', async () => {
    await expectUnsatisfiable(await marshalInputs(world.claims.notIssued, eqBirthDate));
  });

  it('fails for a revoked claim when revocation is checked, and passes when the request skips the check', async () => {
    await expectUnsatisfiable(await marshalInputs(world.claims.revoked, eqBirthDate));
    const signals = await witnessSignals(await marshalInputs(world.claims.revoked, eqBirthDate, { skipRevocation: true }));
    expect(signals[8]).toBe('0');
  });

  it('fails for an expired claim', async () => {
    await expectUnsatisfiable(await marshalInputs(world.claims.expired, eqBirthDate));
  });

  it('fails when the claim subject is not the user', async () => {
    await expectUnsatisfiable(await marshalInputs(world.claims.otherSubject, eqBirthDate));
    // a profile claim needs the matching subject profile nonce
    await expectUnsatisfiable(await marshalInputs(world.claims.profileSubject, eqBirthDate));
    // and the holder proving must be the owner: the stranger cannot use the user's claim
    await expectUnsatisfiable(await marshalInputs(world.claims.slot, eqBirthDate, { user: world.stranger }));
  });

  it('fails for an issuer state that the claim proof is not against', async () => {
    // the issuer's genesis state: its roots do not contain the claim
    await expectUnsatisfiable(await marshalInputs(world.claims.slot, eqBirthDate, { issuerState: world.issuerGenesis }));
    // the current roots with a state that does not commit to them
    const current = await treeState(world.wallets, world.issuer.did);
    await expectUnsatisfiable(
      await marshalInputs(world.claims.slot, eqBirthDate, { issuerState: { ...current, state: world.issuerGenesis.state } }),
    );
  });

  it('fails for a schema other than the claim schema', async () => {
    await expectUnsatisfiable(await marshalInputs(world.claims.slot, eqBirthDate, { schema: PASSPORT_SCHEMA }));
  });
});

describe('credentialAtomicQueryMTPV2OnChain: user state and the GIST', () => {
  it('accepts a genesis state absent from the GIST and a published state found in it, and rejects a state the GIST does not hold', async () => {
    const { wallets, gist } = world;
    const holder = await createIdentity(wallets, 4);
    const genesisState = await treeState(wallets, holder.did);
    const claim = Claim.newClaim(
      SLOT_SCHEMA,
      ClaimOptions.withIndexId(holder.id),
      ClaimOptions.withIndexDataInts(BIRTH_DATE, 5n),
      ClaimOptions.withRevocationNonce(40n),
    );
    await addClaim(wallets, world.issuer.did, claim);
    const query: QuerySpec = { operator: Operators.EQ, slotIndex: 2, values: [BIRTH_DATE] };

    // genesis state, not in the GIST: accepted
    await witnessSignals(await marshalInputs(claim, query, { user: holder }));

    // the holder adds a claim of its own and publishes the new state
    await addClaim(
      wallets,
      holder.did,
      Claim.newClaim(SchemaHash.newSchemaHashFromInt(99n), ClaimOptions.withIndexDataInts(1n, 2n), ClaimOptions.withRevocationNonce(41n)),
    );
    const published = await treeState(wallets, holder.did);
    expect(published.state.bigInt()).not.toBe(genesisState.state.bigInt());
    await gist.publish(holder.id, published.state);
    const signals = await witnessSignals(await marshalInputs(claim, query, { user: holder }));
    expect(signals[5]).toBe((await gist.proof(holder.id)).root.bigInt().toString());

    // once the GIST holds another state for the holder, the state it proves with is rejected
    await gist.publish(holder.id, genesisState.state);
    await expectUnsatisfiable(await marshalInputs(claim, query, { user: holder }));
  });
});
