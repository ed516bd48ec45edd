/**
 * Credential requests (spec 2.1): the verifier describes what a holder must prove and registers
 * the query in the on-chain UniversalVerifier (setRequests), validated by the
 * CredentialAtomicQueryMTPV2Validator with embedded auth. The validator's request params are the
 * ABI encoding of its CredentialAtomicQuery struct; the query hash is computed exactly as the
 * circuit computes its public circuitQueryHash (js-sdk calculateQueryHashV2), so only a proof of
 * this very query can be accepted.
 */
import { randomInt } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Context } from '../../context.js';
import { plainFieldNames, type FieldNamer } from '../validate.js';
import { ConflictError, InputError, NotFoundError, UnprocessableError, describeError, didYouMean } from '../../errors.js';
import { getChain } from '../../chain/chainClient.js';
import { firstUserOfNullifier } from './nullifier.js';
import { letEventLoopRun } from '../../eventLoop.js';
import { requireContractKind } from '../../chain/contractKind.js';
import { TransactionRevertedError, sendContractTransaction } from '../../chain/transactions.js';
import { registeredRequest, requestIdExists, requestProofStatus, requestResponseFields, universalVerifierAbi, universalVerifierId } from '../../chain/universalVerifier.js';
import { PASSPORT_TYPE, unknownDocumentError } from '../../iden3/documents.js';
import { getIden3, proofCircuitsDir } from '../../iden3/wallet.js';
import type { Iden3Documents } from '../../iden3/documents.js';
import { contextDefinesType, contextFieldsOfType, contextTypes } from '../../iden3/typeFields.js';
import {
  FIELD_MODULUS,
  MTP_ON_CHAIN_CIRCUIT,
  PROOF_TYPES,
  QUERY_OPERATORS,
  V3_ON_CHAIN_REQUEST_CIRCUIT,
  conditionOperator,
  queryValueShapeProblem,
  type CredentialRequest,
  type RequestOptions,
} from './pbqSchemas.js';

const REQUESTS_NS = 'iden3.requests';
/** Size of the value array of the credentialAtomicQueryMTPV2OnChain and V3 circuits. */
const VALUE_ARRAY_SIZE = 64;
/** The circuits' code of selective disclosure ($sd). */
const SD_OPERATOR = 16;
/** The spec's example: born before 2001-01-01, as a YYYYMMDD integer. */
export const DEFAULT_QUERY = { field: 'birthDate', op: '$lt', value: 20010101 } as const;

/** What `vc` remembers about a request it registered. */
export interface StoredRequest {
  request: CredentialRequest;
  verifier: string;
  validator: string;
  chainId: number;
  txHash: string;
  params: string;
  queryHash: string;
}

/** Result of creating a request: the spec 2.1 request (what holders receive). */
export type CreateRequestResult = CredentialRequest;

export { universalVerifierAbi };

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const INTEGER_TYPES = new Set(['integer', 'nonNegativeInteger', 'positiveInteger', 'negativeInteger', 'nonPositiveInteger'].map((t) => `${XSD}${t}`));

/**
 * Turns a CLI/HTTP value into the query value: "a,b" lists for $in/$nin, integer strings become
 * numbers while they stay exact (larger ones stay decimal strings, which the js-sdk reads exactly).
 */
function normaliseValue(op: string, value: unknown): unknown {
  const scalar = (v: unknown): unknown => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) && Number.isSafeInteger(Number(v.trim())) ? Number(v.trim()) : v);
  if (op === '$exists' && typeof value === 'string' && /^(true|false)$/.test(value.trim())) return value.trim() === 'true';
  if (op === '$in' || op === '$nin' || op === '$between' || op === '$nonbetween') {
    const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',').map((s) => s.trim()) : [value];
    return list.map(scalar);
  }
  return scalar(value);
}

/** True when `yyyymmdd` is a calendar date written as the integer YYYYMMDD (years 1000 to 9999). */
export function isYyyymmddDate(yyyymmdd: bigint): boolean {
  if (yyyymmdd < 10000101n || yyyymmdd > 99991231n) return false;
  const n = Number(yyyymmdd);
  const [year, month, day] = [Math.floor(n / 10000), Math.floor(n / 100) % 100, n % 100];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * Whether the type's JSON schema marks credentialSubject.`field` as a YYYYMMDD date (its title,
 * description, format or pattern says YYYYMMDD, as the bundled PassportCredential's birthDate and
 * expiryDate do). Types without a known schema have no date fields.
 */
function isDateField(documents: Iden3Documents, type: string, context: string, field: string): boolean {
  const info = documents.findByContext(context, type);
  if (info === undefined) return false;
  type SchemaNode = { properties?: Record<string, SchemaNode>; title?: unknown; description?: unknown; format?: unknown; pattern?: unknown };
  let node = (documents.document(info.schemaUrl) as SchemaNode | undefined)?.properties?.credentialSubject;
  for (const part of field.split('.')) node = node?.properties?.[part];
  if (node === undefined) return false;
  return [node.title, node.description, node.format, node.pattern].some((text) => typeof text === 'string' && /yyyymmdd/i.test(text));
}

/**
 * Refuses (InputError on `value`) a query value the circuit cannot compare as meant: a value of
 * the wrong shape for the operator, a negative, fractional or oversized integer for an integer
 * field (the circuit compares field elements, so -1 would wrap to a huge number), or an invalid
 * YYYYMMDD date for a date field. Runs before anything is registered on chain.
 */
export async function checkQueryValue(ctx: Context, query: CredentialRequest['query'], at: { names: FieldNamer; value: string }): Promise<void> {
  const [field, condition] = Object.entries(query.credentialSubject)[0]!;
  const { op, value } = conditionOperator(condition);
  const refuse = (reason: string): InputError => new InputError(`${at.names(at.value)}: ${reason}`, { field: at.value });
  const shape = queryValueShapeProblem(op, value);
  if (shape !== undefined) throw refuse(shape);
  // $sd has no value, $exists a boolean: nothing to compare with the field's type.
  if (op === '$sd' || op === '$exists') return;

  const iden3 = await getIden3(ctx);
  const loader = iden3.documents.loader();
  const contextJson = JSON.stringify((await loader(query.context)).document);
  let datatype: string;
  try {
    datatype = await iden3.modules.sdk.jsonLDMerklizer.Path.newTypeFromContext(contextJson, `${query.type}.${field}`, { documentLoader: loader as never });
  } catch {
    return; // a field the context does not define: encodeRequestParams says so
  }
  if (!INTEGER_TYPES.has(datatype)) return;
  const dateField = isDateField(iden3.documents, query.type, query.context, field);
  for (const item of Array.isArray(value) ? value : [value]) {
    const shown = JSON.stringify(item);
    let integer: bigint;
    if (typeof item === 'number' && Number.isSafeInteger(item)) integer = BigInt(item);
    else if (typeof item === 'string' && /^-?\d+$/.test(item.trim())) integer = BigInt(item.trim());
    else if (typeof item === 'number' && Number.isInteger(item)) {
      throw refuse(`${shown} is beyond 2^53 and not exact as a JSON number; give it as a decimal string`);
    } else {
      throw refuse(`${shown} is not an integer (credentialSubject.${field} is an ${datatype.replace(XSD, 'xsd:')})`);
    }
    if (integer < 0n) {
      throw refuse(`${shown} is negative; the circuit compares non-negative integers only (credentialSubject.${field})`);
    }
    if (integer >= FIELD_MODULUS) {
      throw refuse(`${shown} is not below the circuit's field modulus ${FIELD_MODULUS}`);
    }
    if (dateField && !isYyyymmddDate(integer)) {
      throw refuse(`${shown} is not a valid YYYYMMDD date (credentialSubject.${field} is a date, e.g. 20010101)`);
    }
  }
}

/**
 * The query's values as the circuit compares them, as the js-sdk computes them
 * (transformQueryValueToBigInts: each hashed for the field's datatype), with a turn of the event
 * loop after each, so that a server answers meanwhile.
 */
async function hashQueryValues(merklizer: { hashValue(dataType: string, value: unknown): Promise<bigint> }, datatype: string, values: unknown[]): Promise<bigint[]> {
  const hashed: bigint[] = [];
  for (const value of values) {
    hashed.push(await merklizer.hashValue(datatype, value));
    await letEventLoopRun();
  }
  return hashed;
}

/** The on-chain encoding of a request: validator params and the query hash. */
export async function encodeRequestParams(
  ctx: Context,
  request: CredentialRequest,
  at: { names: FieldNamer; allowedIssuers: string; query: string },
  verifierID = 0n,
  /** Bind the request to `verifierID` even without a nullifier session (vc verifier request --bind-verifier). */
  bindVerifier = false,
): Promise<{ params: string; queryHash: bigint }> {
  const iden3 = await getIden3(ctx);
  const { sdk, core } = iden3.modules;
  const loader = iden3.documents.loader();
  const contextJson = JSON.stringify((await loader(request.query.context)).document);
  const ldOptions = { documentLoader: loader as never };
  let queryMetadata;
  let schemaHash;
  try {
    const [propertyQuery] = sdk.parseZKPQuery(request.query as never);
    const given: unknown = propertyQuery!.operatorValue;
    // A list of values ($in, $nin: up to 64) is hashed here, the loop given a turn between values
    // (each string a Poseidon hash, ~2 ms: 16 queries of 64 would hold a server ~2 s); the js-sdk
    // checks the query with its first value, and hashes each value the same way.
    const listed = Array.isArray(given) && given.length > 1 ? (given as unknown[]) : undefined;
    queryMetadata = await sdk.parseQueryMetadata(listed === undefined ? propertyQuery! : { ...propertyQuery!, operatorValue: listed.slice(0, 1) }, contextJson, request.query.type, {
      ...ldOptions,
      legacyNoopOperator: request.circuitId === MTP_ON_CHAIN_CIRCUIT,
    });
    if (listed !== undefined && queryMetadata.values.length > 0) queryMetadata.values = await hashQueryValues(sdk.jsonLDMerklizer.Merklizer, queryMetadata.datatype, listed);
    const schemaId = await sdk.jsonLDMerklizer.Path.getTypeIDFromContext(contextJson, request.query.type, ldOptions);
    schemaHash = sdk.calculateCoreSchemaHash(new TextEncoder().encode(schemaId));
  } catch (error) {
    throw new UnprocessableError(`the query does not fit type ${request.query.type} of ${request.query.context}: ${describeError(error)}`, at.query === '' ? {} : { field: at.query });
  }
  const allowedIssuers = request.query.allowedIssuers.includes('*')
    ? []
    : request.query.allowedIssuers.map((did) => {
        try {
          return core.DID.idFromDID(core.DID.parse(did)).bigInt();
        } catch (error) {
          throw new InputError(`${at.names(at.allowedIssuers)}: ${did} is not an iden3 DID (${describeError(error)})`, { field: at.allowedIssuers });
        }
      });
  const { AbiCoder } = await import('ethers');
  if (request.circuitId === V3_ON_CHAIN_REQUEST_CIRCUIT) {
    // As the circuit hashes it (js-sdk calculateQueryHashV3): $sd and $noop carry no values; the
    // revocation is checked; with a nullifier session, the UniversalVerifier's verifierID (the
    // circuit's nullifier needs both; without a session both are 0: no nullifier), unless the
    // request is bound to the verifier (its verifierID without a session: the proof must carry
    // it, as Privado ID / js-sdk wallets prove on-chain requests for the message's verifier).
    const operator = Number(queryMetadata.operator);
    const queryValues = operator === SD_OPERATOR || operator === 0 ? [] : queryMetadata.values;
    const merklized = queryMetadata.merklizedSchema ? 1 : 0;
    const nullifierSessionID = BigInt(request.params?.nullifierSessionId ?? 0);
    const requestVerifierID = nullifierSessionID === 0n && !bindVerifier ? 0n : verifierID;
    const queryHash = sdk.calculateQueryHashV3(
      queryValues,
      schemaHash,
      queryMetadata.slotIndex,
      operator,
      queryMetadata.claimPathKey.toString(),
      queryValues.length,
      merklized,
      1,
      requestVerifierID.toString(),
      nullifierSessionID.toString(),
    );
    const proofType = request.query.proofType === PROOF_TYPES.sig ? 1 : request.query.proofType === PROOF_TYPES.mtp ? 2 : 0;
    const params = AbiCoder.defaultAbiCoder().encode(
      [
        'tuple(uint256 schema, uint256 claimPathKey, uint256 operator, uint256 slotIndex, uint256[] value, uint256 queryHash, uint256[] allowedIssuers, string[] circuitIds, bool skipClaimRevocationCheck, uint256 groupID, uint256 nullifierSessionID, uint256 proofType, uint256 verifierID)',
      ],
      [
        {
          schema: schemaHash.bigInt(),
          claimPathKey: queryMetadata.claimPathKey,
          operator,
          slotIndex: queryMetadata.slotIndex,
          value: sdk.prepareCircuitArrayValues(queryValues, VALUE_ARRAY_SIZE),
          queryHash,
          allowedIssuers,
          circuitIds: [V3_ON_CHAIN_REQUEST_CIRCUIT],
          skipClaimRevocationCheck: false,
          groupID: 0,
          nullifierSessionID,
          proofType,
          verifierID: requestVerifierID,
        },
      ],
    );
    return { params, queryHash };
  }
  // Merklized credentials prove inclusion of the value at the path (0); non-merklized use slots (1).
  const claimPathNotExists = queryMetadata.merklizedSchema ? 0 : 1;
  const queryHash = sdk.calculateQueryHashV2(queryMetadata.values, schemaHash, queryMetadata.slotIndex, queryMetadata.operator, queryMetadata.claimPathKey.toString(), claimPathNotExists);
  const values = sdk.prepareCircuitArrayValues(queryMetadata.values, VALUE_ARRAY_SIZE);
  const params = AbiCoder.defaultAbiCoder().encode(
    ['tuple(uint256 schema, uint256 claimPathKey, uint256 operator, uint256 slotIndex, uint256[] value, uint256 queryHash, uint256[] allowedIssuers, string[] circuitIds, bool skipClaimRevocationCheck, uint256 claimPathNotExists)'],
    [
      {
        schema: schemaHash.bigInt(),
        claimPathKey: queryMetadata.claimPathKey,
        operator: queryMetadata.operator,
        slotIndex: queryMetadata.slotIndex,
        value: values,
        queryHash,
        allowedIssuers,
        circuitIds: [MTP_ON_CHAIN_CIRCUIT],
        skipClaimRevocationCheck: false,
        claimPathNotExists,
      },
    ],
  );
  return { params, queryHash };
}

/** The query flags of `vc verifier request` and `vc verifier auth-request`. */
export interface RequestQueryOptions {
  type?: string | undefined;
  context?: string | undefined;
  field?: string | undefined;
  op?: string | undefined;
  value?: unknown;
  allowedIssuers?: string[] | undefined;
  proofType?: 'sig' | 'mtp' | undefined;
}

/**
 * The query of a request from the flags of `vc verifier request` (and `vc verifier auth-request`):
 * the defaults (PassportCredential, birthDate $lt 20010101, any issuer), the value checked for its
 * operator before the js-sdk is loaded, the type's context (given, registered or pinned) and the
 * field checked against it. Registers nothing.
 */
export async function buildRequestQuery(
  ctx: Context,
  options: RequestQueryOptions,
  names: FieldNamer,
): Promise<CredentialRequest['query']> {
  const field = options.field ?? DEFAULT_QUERY.field;
  const op = options.op ?? DEFAULT_QUERY.op;
  // The value's shape needs no context: refuse it before loading the js-sdk.
  const value = checkedQueryValue(op, field, options.value, names);
  const iden3 = await getIden3(ctx);
  const type = options.type ?? PASSPORT_TYPE;
  const context = options.context ?? iden3.documents.types().find((t) => t.type === type)?.contextUrl;
  if (context === undefined) {
    const known = iden3.documents.types().map((t) => t.type);
    throw new InputError(
      `no JSON-LD context known for type ${type}${didYouMean(type, known)} (known: ${known.join(', ')}): give its URL (${names('context')}), a context the issuer registered or one pinned with vc documents add`,
      { field: 'context' },
    );
  }
  checkQueryField(iden3.documents, { type, context, field }, names);
  return {
    allowedIssuers: options.allowedIssuers ?? ['*'],
    type,
    context,
    // Selective disclosure is the empty condition (the iden3 query language).
    credentialSubject: { [field]: op === '$sd' ? {} : { [op]: value as never } },
    ...(options.proofType === undefined ? {} : { proofType: PROOF_TYPES[options.proofType] }),
  };
}

/**
 * The value of a query as `vc verifier request` and `vc verifier auth-request` take it: none for
 * $sd; else the one given, or the default (a birthDate, YYYYMMDD: for that field and a one-value
 * operator only), normalised and checked against the operator's shape. InputError naming `value`.
 */
export function checkedQueryValue(op: string, field: string, given: unknown, names: FieldNamer): unknown {
  if (op === '$sd') {
    if (given !== undefined) throw new InputError(`${names('value')}: $sd takes no value (the proof discloses the field's value)`, { field: 'value' });
    return undefined;
  }
  if (given === undefined && field !== DEFAULT_QUERY.field) {
    throw new InputError(`${names('value')} is required with ${names('field')} ${field} (the default ${DEFAULT_QUERY.value} is for ${DEFAULT_QUERY.field})`, { field: 'value' });
  }
  if (given === undefined && queryValueShapeProblem(op, DEFAULT_QUERY.value) !== undefined) {
    throw new InputError(`${names('value')} is required with ${names('op')} ${op} (the default ${DEFAULT_QUERY.value} is one value)`, { field: 'value' });
  }
  const value = normaliseValue(op, given ?? DEFAULT_QUERY.value);
  const shape = queryValueShapeProblem(op, value);
  if (shape !== undefined) throw new InputError(`${names('value')}: ${shape}`, { field: 'value' });
  return value;
}

/**
 * Refuses, before any library reads the context, a context vc does not have (naming the command
 * that adds it), a type the context does not define, and a field the type does not have (with
 * the closest one and the fields it has): the js-sdk would say "term is not defined".
 */
export function checkQueryField(documents: Iden3Documents, query: { type: string; context: string; field: string }, names: FieldNamer): void {
  const contextDocument = documents.document(query.context);
  if (contextDocument === undefined) throw unknownDocumentError(query.context, 'JSON-LD context', 'context', names('context'));
  const types = contextTypes(contextDocument);
  const fields = contextFieldsOfType(contextDocument, query.type);
  if (fields === undefined) {
    // A context of another shape (no type terms, or a default vocabulary): the js-sdk judges it.
    if (types.length === 0 || contextDefinesType(contextDocument, query.type)) return;
    throw new InputError(`${names('type')}: the context ${query.context} does not define the type ${query.type}${didYouMean(query.type, types)} (it defines ${types.join(', ')})`, {
      field: 'type',
      publicUrls: [query.context],
    });
  }
  const top = query.field.split('.', 1)[0]!;
  if (fields.includes(top)) return;
  const named = documents.fieldsOf(query.type, query.context) ?? fields;
  throw new InputError(`${names('field')}: ${query.type} has no field ${top}${didYouMean(top, named)}; its fields: ${named.join(', ')}`, { field: 'field' });
}

/**
 * `vc verifier request`: builds the spec 2.1 request (defaults: PassportCredential, birthDate
 * $lt 20010101, any issuer; the value 20010101 is the default for birthDate only), registers it
 * on the UniversalVerifier and returns it.
 */
export async function createCredentialRequest(ctx: Context, options: RequestOptions = {}, names: FieldNamer = plainFieldNames): Promise<CreateRequestResult> {
  const circuitId = options.circuitId ?? MTP_ON_CHAIN_CIRCUIT;
  const op = options.op ?? DEFAULT_QUERY.op;
  if (circuitId === MTP_ON_CHAIN_CIRCUIT && !(QUERY_OPERATORS as readonly string[]).includes(op)) {
    throw new InputError(`${names('op')}: ${op} needs ${names('circuitId')} ${V3_ON_CHAIN_REQUEST_CIRCUIT} (${MTP_ON_CHAIN_CIRCUIT} knows ${QUERY_OPERATORS.join(', ')})`, { field: 'op' });
  }
  if (circuitId === MTP_ON_CHAIN_CIRCUIT && options.proofType !== undefined) {
    throw new InputError(`${names('proofType')}: ${MTP_ON_CHAIN_CIRCUIT} proves with the MTP proof only; a proof type needs ${names('circuitId')} ${V3_ON_CHAIN_REQUEST_CIRCUIT}`, { field: 'proofType' });
  }
  if (circuitId === MTP_ON_CHAIN_CIRCUIT && options.bindVerifier === true) {
    throw new InputError(`${names('bindVerifier')}: ${MTP_ON_CHAIN_CIRCUIT} has no verifierID; binding the request to the verifier needs ${names('circuitId')} ${V3_ON_CHAIN_REQUEST_CIRCUIT}`, { field: 'bindVerifier' });
  }
  if (circuitId === MTP_ON_CHAIN_CIRCUIT && options.nullifierSessionID !== undefined) {
    throw new InputError(`${names('nullifierSessionID')}: ${MTP_ON_CHAIN_CIRCUIT} has no nullifier; a nullifier session needs ${names('circuitId')} ${V3_ON_CHAIN_REQUEST_CIRCUIT}`, { field: 'nullifierSessionID' });
  }
  const query = await buildRequestQuery(ctx, options, names);
  const params = options.nullifierSessionID === undefined ? undefined : { nullifierSessionId: BigInt(options.nullifierSessionID).toString() };
  // The checks and the encoding depend on the query only, not on the id: doing them first refuses
  // a field, value or issuer that does not fit before the circuits, the chain and the id search
  // are waited for, so nothing is registered on chain for a refused query.
  await checkQueryValue(ctx, query, { names, value: 'value' });
  const encodingAt = { names, allowedIssuers: 'allowedIssuers', query: '' };
  let encoded = await encodeRequestParams(ctx, { id: 1, circuitId, query, ...(params === undefined ? {} : { params }) }, encodingAt);

  await proofCircuitsDir(ctx, circuitId === MTP_ON_CHAIN_CIRCUIT ? 'mtp' : 'v3');
  const chain = await getChain(ctx);
  const verifier = chain.addresses.universalVerifier;
  const validator = circuitId === MTP_ON_CHAIN_CIRCUIT ? chain.addresses.mtpValidator : chain.addresses.v3Validator;
  if (validator === undefined) {
    throw new UnprocessableError(`chain ${chain.chainId} no CredentialAtomicQueryV3StableValidator: set V3_ADDRESS (the deploying party's \`vc chain env\` gives it) or run \`vc chain deploy\` there`, {
      field: 'circuitId',
    });
  }
  if (validator === chain.addresses.v3Validator) await requireContractKind(ctx, 'v3Validator', validator, chain.addresses);
  if (params !== undefined || options.bindVerifier === true) {
    // The nullifier is bound to this verifier: the UniversalVerifier accepts a request's verifierID
    // when it is 0 or its own (setRequests: VerifierIDIsNotValid otherwise), and the circuit
    // gives a nullifier only with both a verifierID and a session id.
    const verifierID = await universalVerifierId(ctx);
    encoded = await encodeRequestParams(ctx, { id: 1, circuitId, query, ...(params === undefined ? {} : { params }) }, encodingAt, verifierID, options.bindVerifier === true);
  }
  const { params: encodedParams, queryHash } = encoded;
  if (params !== undefined) {
    // A re-run of a request this wallet registered (its output lost: a crash, a closed terminal)
    // gives that request back; another query on the session of the wallet's own request is a
    // conflict naming it.
    const own = await ownSessionRequest(ctx, { chainId: chain.chainId, verifier, sessionId: params.nullifierSessionId });
    if (own !== undefined) return sameRequestOrConflict(own, { circuitId, validator, query, encodedParams }, names);
  }
  const abi = universalVerifierAbi();
  let id = 0;
  for (let attempt = 0; attempt < 8 && id === 0; attempt += 1) {
    // Request ids of type 0 (top two bytes zero) are free-form uint256 values; a random 48-bit
    // integer stays a JSON safe integer and is checked for uniqueness on this verifier.
    const candidate = randomInt(1, 2 ** 48);
    const exists = await requestIdExists(ctx, candidate);
    if (!exists) id = candidate;
  }
  if (id === 0) throw new UnprocessableError('could not find a free request id on the UniversalVerifier');

  const request: CredentialRequest = { id, circuitId, query, ...(params === undefined ? {} : { params }) };
  let sent;
  try {
    sent = await sendContractTransaction(
      ctx,
      {
        address: verifier,
        abi,
        method: 'setRequests',
        args: [[{ requestId: id, metadata: JSON.stringify(request), validator, params: encodedParams, creator: chain.signer.address }]],
      },
      { description: `register request ${id} on the UniversalVerifier` },
    );
  } catch (error) {
    if (error instanceof TransactionRevertedError && error.revertName === 'NullifierSessionIDAlreadyExists') {
      // Another process of this wallet may have registered it meanwhile.
      const own = await ownSessionRequest(ctx, { chainId: chain.chainId, verifier, sessionId: params?.nullifierSessionId ?? '' });
      if (own !== undefined) return sameRequestOrConflict(own, { circuitId, validator, query, encodedParams }, names);
      // The UniversalVerifier keeps each session id for one request (of any creator).
      throw new ConflictError(`${names('nullifierSessionID')}: session ${params?.nullifierSessionId} is already used by another request on the UniversalVerifier ${verifier}; each nullifier session belongs to one request, choose another`, {
        field: 'nullifierSessionID',
        cause: error,
      });
    }
    throw error;
  }
  ctx.store.put<StoredRequest>(REQUESTS_NS, String(id), {
    request,
    verifier,
    validator,
    chainId: chain.chainId,
    txHash: sent.hash,
    params: encodedParams,
    queryHash: queryHash.toString(),
  });
  return request;
}

/**
 * The request this wallet registered on `verifier` (chain `chainId`) with nullifier session
 * `sessionId`, when the chain still has it.
 */
async function ownSessionRequest(ctx: Context, where: { chainId: number; verifier: string; sessionId: string }): Promise<StoredRequest | undefined> {
  const own = ctx.store
    .list<StoredRequest>(REQUESTS_NS)
    .map((record) => record.value)
    .find(
      (stored) =>
        stored.chainId === where.chainId && stored.verifier.toLowerCase() === where.verifier.toLowerCase() && stored.request.params?.nullifierSessionId === where.sessionId,
    );
  return own !== undefined && (await requestIdExists(ctx, own.request.id)) ? own : undefined;
}

/** The wallet's own request of a session when it is this very request (same circuit, validator, query and encoded params); a ConflictError naming it otherwise. */
function sameRequestOrConflict(
  own: StoredRequest,
  wanted: { circuitId: string; validator: string; query: CredentialRequest['query']; encodedParams: string },
  names: FieldNamer,
): CredentialRequest {
  const same =
    own.request.circuitId === wanted.circuitId &&
    own.validator.toLowerCase() === wanted.validator.toLowerCase() &&
    own.params === wanted.encodedParams &&
    isDeepStrictEqual(own.request.query, JSON.parse(JSON.stringify(wanted.query)) as unknown);
  if (same) return own.request;
  throw new ConflictError(
    `${names('nullifierSessionID')}: session ${own.request.params?.nullifierSessionId} is already used by another request on the UniversalVerifier ${own.verifier}: this wallet's request ${own.request.id} (another query); each nullifier session belongs to one request, choose another`,
    { field: 'nullifierSessionID' },
  );
}

/** On-chain status of a holder address for a request. */
export interface RequestStatusResult {
  requestId: number;
  address: string;
  verifier: string;
  isVerified: boolean;
  validatorVersion: string;
  timestamp: number;
  /** The request's circuit, from the metadata it was registered with (when it is a vc request). */
  circuitId?: string;
  /** What the validator recorded with a verified proof (V3: userID, linkID, nullifier, timestamp, issuerID...), as decimal strings. */
  responseFields?: Record<string, string>;
  /** $sd: the disclosed field and its value (the proof's operatorOutput). */
  disclosed?: Record<string, string>;
  /**
   * V3 with a nullifier session: the address whose verified proof gave this response's nullifier
   * first, when it is another one. The contracts accept the same nullifier from a second address
   * (isVerified stays true); vc does not accept this response (the same holder profile and session).
   */
  nullifierFirstUsedBy?: string;
}

/** The request vc registered, read back from its on-chain metadata (undefined for another party's metadata). */
function requestFromMetadata(metadata: string): CredentialRequest | undefined {
  try {
    const parsed = JSON.parse(metadata) as CredentialRequest;
    return typeof parsed === 'object' && parsed !== null && typeof parsed.circuitId === 'string' && typeof parsed.query?.credentialSubject === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** `vc verifier status --request ID --address A`: reads the UniversalVerifier. */
export async function readRequestStatus(ctx: Context, options: { request: number; address: string }): Promise<RequestStatusResult> {
  const chain = await getChain(ctx);
  const verifier = chain.addresses.universalVerifier;
  if (!(await requestIdExists(ctx, options.request))) throw new NotFoundError(`request ${options.request} is not registered on the UniversalVerifier ${verifier}`, { field: 'request' });
  const status = await requestProofStatus(ctx, options.address, options.request);
  const result: RequestStatusResult = {
    requestId: options.request,
    address: options.address,
    verifier,
    isVerified: status.isVerified,
    validatorVersion: status.validatorVersion,
    timestamp: Number(status.timestamp),
  };
  const request = requestFromMetadata((await registeredRequest(ctx, options.request)).metadata);
  if (request !== undefined) result.circuitId = request.circuitId;
  if (!status.isVerified || request?.circuitId !== V3_ON_CHAIN_REQUEST_CIRCUIT) return result;
  const fields = await requestResponseFields(ctx, options.request, options.address);
  result.responseFields = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, value.toString()]));
  const [field, condition] = Object.entries(request.query.credentialSubject)[0] ?? [];
  if (field !== undefined && condition !== undefined && conditionOperator(condition).op === '$sd' && fields.operatorOutput !== undefined) {
    result.disclosed = { [field]: fields.operatorOutput.toString() };
  }
  // A nullifier (0: the request has no session) another address gave first: a second use.
  if (fields.nullifier !== undefined && fields.nullifier !== 0n) {
    const first = await firstUserOfNullifier(ctx, options.request, fields.nullifier);
    if (first !== undefined && first.toLowerCase() !== options.address.toLowerCase()) result.nullifierFirstUsedBy = first;
  }
  return result;
}
