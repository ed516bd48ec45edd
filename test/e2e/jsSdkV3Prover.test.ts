/**
 * Interop, V3 on chain: a verifier request registered by `vc verifier request --circuit
 * credentialAtomicQueryV3OnChain` is proved by a holder built directly on @0xpolygonid/js-sdk
 * (not through vc's code): a js-sdk issuer signs the official KYCAgeCredential for a js-sdk
 * holder (both genesis identities, their statuses in the IdentityTreeStore of vc's chain, no
 * state transition); vc's verifier asks for the request with a proofs/1.0/contract-invoke-request
 * (`vc verifier contract-request`), which the js-sdk's own ContractRequestHandler answers as a
 * Privado ID verifier asking for authV2 would have it: its V3 input generator and prover make the
 * proof with vc's circuit files, its processProofAuth makes the authV2 auth proof on vc's authV2
 * circuit, and it submits both to the UniversalVerifier's submitResponse itself; the contract
 * verifies them with vc's verifiers, and `vc verifier status` reads it back. The js-sdk's
 * authV3-8-32 auth proof (its processProofAuth for a request accepting authV3-8-32 only, on vc's
 * circuit) is accepted by the UniversalVerifier's authV3-8-32 method, and refused tampered.
 * One query proof and two auth proofs; the two identity creations each send one transaction.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  AuthMethod,
  ContractRequestHandler,
  CredentialStatusPublisherRegistry,
  CredentialStatusResolverRegistry,
  CredentialStatusType,
  EthStateStorage,
  FSCircuitStorage,
  Iden3OnchainSmtCredentialStatusPublisher,
  OnChainResolver,
  OnChainRevocationStorage,
  OnChainZKPVerifier,
  PackageManager,
  PlainPacker,
  ProofService,
  calcChallengeAuth,
  CircuitId,
  defaultEthConnectionConfig,
  parseAcceptProfile,
  processProofAuth,
  type ContractInvokeRequest,
  type ContractInvokeResponse,
  type EthConnectionConfig,
} from '@0xpolygonid/js-sdk';
import { Id } from '@iden3/js-iden3-core';
import { Contract, Interface, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { iden3Artifact } from '../../src/chain/artifacts.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVc, runVcInProcess, tempDir, templateHome, type VcRun } from '../helpers.js';
import { CONTEXT_FILE, CONTEXT_URL, ISSUER_ACCOUNT_KEY, SCHEMA_FILE, SCHEMA_URL, issuerDocumentLoader as documentLoader, jsSdkWallets, registerNetworkOf } from './support/jsSdkIssuer.js';

type Json = Record<string, unknown>;
const LONG = 900_000;
const V3 = 'credentialAtomicQueryV3OnChain';
const ONCHAIN = CredentialStatusType.Iden3OnchainSparseMerkleTreeProof2023;

const tmp = tempDir('vc-js-sdk-v3-');
const home = templateHome(path.join(tmp.dir, 'home'));
const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE };
/** In this process (no node start-up): these tests are about what the commands do. */
const vc = (args: string[]): Promise<VcRun> => runVcInProcess(['--json', ...args], { home, env });
const ok = (run: VcRun): VcRun => {
  expect(run.status, run.stderr).toBe(0);
  return run;
};

let chain: { rpcUrl: string; chainId: number; contracts: { state: string; universalVerifier: string; identityTreeStore: string } };
let provider: JsonRpcProvider | undefined;

beforeAll(async () => {
  // vc's own holder DID names the DID network of vc's chain, which the js-sdk must know too.
  const vcHolder = ok(await vc(['holder', 'did', 'create'])).json<{ did_String: string }>().did_String;
  chain = ok(await vc(['chain', 'up'])).json<typeof chain>();
  ok(await vc(['documents', 'add', CONTEXT_URL, CONTEXT_FILE]));
  ok(await vc(['documents', 'add', SCHEMA_URL, SCHEMA_FILE]));
  registerNetworkOf(vcHolder, chain.chainId);
}, LONG);

afterAll(async () => {
  provider?.destroy();
  runVc(['chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('a js-sdk holder proves a V3 request vc registered', () => {
  it('with the js-sdk input generator and prover on vc circuit files, submitted with a js-sdk authV2 auth proof; the contract verifies both with vc verifiers', async () => {
    // vc's authV3-8-32 circuit (built on demand, a no-op when cached) before vc's first V3 flow
    // here, which deploys the verifiers of the circuit set in use: its authV3-8-32 one too.
    ok(await vc(['circuits', 'build', '--circuit', 'authV3-8-32']));
    const request = ok(
      await vc(['verifier', 'request', '--circuit', V3, '--bind-verifier', '--proof-type', 'sig', '--type', 'KYCAgeCredential', '--context-url', CONTEXT_URL, '--field', 'birthday', '--op', '$between', '--value', '19900101,20000101']),
    ).json<{ id: number; circuitId: string; query: Json }>();
    expect(request.circuitId).toBe(V3);

    // vc's built V3 circuit (the request built it), in the official directory layout the js-sdk reads.
    const status = ok(await vc(['circuits', 'status'])).json<{ onDemand: Array<{ id: string; dir: string; complete: boolean }> }>();
    const small = status.onDemand.find((c) => c.id === `${V3}-16-16-64-16-32`);
    expect(small?.complete).toBe(true);
    const circuitsDir = path.join(tmp.dir, 'circuits');
    mkdirSync(circuitsDir);
    symlinkSync(small!.dir, path.join(circuitsDir, small!.id), 'dir');
    // And vc's authV2 circuit (built on demand; the template home's deployment has its verifier).
    const auth = status.onDemand.find((c) => c.id === 'authV2');
    expect(auth?.complete).toBe(true);
    symlinkSync(auth!.dir, path.join(circuitsDir, auth!.id), 'dir');
    const authV3 = status.onDemand.find((c) => c.id === 'authV3-8-32');
    expect(authV3?.complete).toBe(true);
    symlinkSync(authV3!.dir, path.join(circuitsDir, authV3!.id), 'dir');

    const [, method, blockchain, network] = (ok(await vc(['holder', 'did', 'create'])).json<{ did_String: string }>().did_String).split(':') as [string, string, string, string];
    const connection: EthConnectionConfig = { ...defaultEthConnectionConfig, url: chain.rpcUrl, contractAddress: chain.contracts.state, chainId: chain.chainId };
    provider = new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true });
    // One nonce counter: the js-sdk's IdentityTreeStore client asks its own provider for the nonce,
    // which keeps an identical call's answer for 250 ms (ethers' default), and its two identity
    // creations send back to back: the second went with the first one's nonce ("nonce too low").
    const account = new Wallet(ISSUER_ACCOUNT_KEY, provider);
    const signer = new NonceManager(account);
    const stateStorageOptions = { disableCache: true };
    const states = new EthStateStorage(connection, stateStorageOptions);
    const resolvers = new CredentialStatusResolverRegistry();
    resolvers.register(ONCHAIN, new OnChainResolver([connection], { stateStorageOptions }));
    const publishers = new CredentialStatusPublisherRegistry();
    publishers.register(ONCHAIN, new Iden3OnchainSmtCredentialStatusPublisher(new OnChainRevocationStorage(connection, chain.contracts.identityTreeStore, signer)));
    const { identityWallet, credentialWallet } = jsSdkWallets(states, { resolvers, publishers });
    const revocationOpts = { type: ONCHAIN, id: chain.contracts.identityTreeStore };
    // Genesis identities: each publishes its genesis tree nodes to the IdentityTreeStore, no state transition.
    const { did: issuer } = await identityWallet.createIdentity({ method, blockchain, networkId: network, seed: new Uint8Array(32).fill(11), revocationOpts });
    const { did: holder } = await identityWallet.createIdentity({ method, blockchain, networkId: network, seed: new Uint8Array(32).fill(12), revocationOpts });
    const credential = await identityWallet.issueCredential(
      issuer,
      { credentialSchema: SCHEMA_URL, type: 'KYCAgeCredential', credentialSubject: { id: holder.string(), birthday: 19960424, documentType: 2 }, revocationOpts },
      { documentLoader } as never,
    );
    expect((credential.proof as Array<{ type: string }>).map((p) => p.type)).toEqual(['BJJSignature2021']);
    await credentialWallet.save(credential);

    // vc's verifier asks for the request as a Privado ID verifier does: a contract-invoke-request
    // (addressed to the holder: the js-sdk's handler needs `to`), which the js-sdk wallet's own
    // ContractRequestHandler answers: it finds the credential, proves with the request's scope,
    // picks embedded auth from the accept profile and submits to the UniversalVerifier itself.
    const invoke = ok(await vc(['verifier', 'contract-request', '--id', String(request.id), '--to', holder.string()])).json<ContractInvokeRequest>();
    const proofService = new ProofService(identityWallet, credentialWallet, new FSCircuitStorage({ dirname: circuitsDir }), states, { documentLoader } as never);
    const packageManager = new PackageManager();
    packageManager.registerPackers([new PlainPacker()]);
    const zkpVerifier = new OnChainZKPVerifier([{ ...connection, contractAddress: chain.contracts.universalVerifier }], { didResolverUrl: 'http://127.0.0.1:0/unused-cross-chain-resolver' });
    const handler = new ContractRequestHandler(packageManager, proofService, zkpVerifier);
    // Asked with the js-sdk's default accept profile (an authV2 JWZ), the handler's processProofAuth
    // makes an authV2 auth proof on vc's authV2 circuit, over calcChallengeAuth(sender, responses).
    invoke.body.accept = ['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV2;alg=groth16'];
    const answer = (await handler.handle(invoke, { senderDid: holder, ethSigner: account })) as ContractInvokeResponse;
    expect(answer).toMatchObject({ type: 'https://iden3-communication.io/proofs/1.0/contract-invoke-response', from: holder.string(), to: invoke.from, body: { authProof: { authMethod: AuthMethod.AUTHV2 } } });
    expect(answer.body.scope).toHaveLength(1);
    const [response] = answer.body.scope;
    expect(response).toMatchObject({ id: request.id, circuitId: `${V3}-16-16-64-16-32`, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(response!.pub_signals[6]).toBe('1');
    const receipt = await provider.getTransactionReceipt(response!.txHash!);
    expect(receipt).toMatchObject({ status: 1, to: chain.contracts.universalVerifier, from: account.address });

    const read = ok(await vc(['verifier', 'status', '--request', String(request.id), '--address', account.address])).json<Json>();
    expect(read).toMatchObject({ isVerified: true, circuitId: V3, responseFields: { userID: Id.fromString(holder.string().split(':').at(-1)!).bigInt().toString() } });
    // The auth proof's challenge is the js-sdk's calcChallengeAuth, which the contract recomputed (else ChallengeIsInvalid).
    const { txHash: _txHash, ...proved } = response!;
    expect((answer.body.authProof as { zkp?: { pub_signals: string[] } }).zkp?.pub_signals[1]).toBe(calcChallengeAuth(account.address, [proved as never]).toString());
    writeFileSync(path.join(tmp.dir, 'status.json'), JSON.stringify(read));

    // The js-sdk's authV3-8-32 auth proof, as its processProofAuth makes it for a request accepting
    // only authV3-8-32 (its ProofService on vc's authV3-8-32 circuit), packed by its
    // prepareTxArgsSubmit: the UniversalVerifier's authV3-8-32 method (AuthV3_8_32Validator, vc's
    // verifier behind its proxy) accepts it; tampered, the validator refuses it (ProofIsNotValid).
    // The auth is checked before any response: an answer of none is enough to call it.
    const { authProof } = await processProofAuth(holder, proofService, {
      supportedCircuits: [CircuitId.AuthV3_8_32],
      acceptProfile: parseAcceptProfile('iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV3-8-32;alg=groth16'),
      senderAddress: account.address,
      zkpResponses: [],
    });
    expect(authProof).toMatchObject({ authMethod: AuthMethod.AUTHV3_8_32, zkp: { circuitId: CircuitId.AuthV3_8_32 } });
    const txData = { contract_address: chain.contracts.universalVerifier, method_id: '06c86a91', chain_id: chain.chainId };
    const submitArgs = async (proof: typeof authProof): Promise<unknown[]> =>
      (await OnChainZKPVerifier.prepareTxArgsSubmit('http://127.0.0.1:0/unused-cross-chain-resolver', txData, [], proof)).txDataArgs as unknown[];
    const universalVerifier = new Contract(chain.contracts.universalVerifier, iden3Artifact('UniversalVerifier').abi as never, account);
    await expect(universalVerifier.getFunction('submitResponse').staticCall(...(await submitArgs(authProof)))).resolves.toBeDefined();
    const { zkp } = authProof as typeof authProof & { zkp: { proof: { pi_a: string[] } } };
    const tampered = { ...authProof, zkp: { ...zkp, proof: { ...zkp.proof, pi_a: [zkp.proof.pi_a[1]!, zkp.proof.pi_a[0]!, zkp.proof.pi_a[2]!] } } } as typeof authProof;
    const refused = (await universalVerifier
      .getFunction('submitResponse')
      .staticCall(...(await submitArgs(tampered)))
      .then(
        () => undefined,
        (error: unknown) => error,
      )) as { data?: string } | undefined;
    expect(new Interface(iden3Artifact('AuthV3_8_32Validator').abi as never).parseError(refused?.data ?? '0x')?.name).toBe('ProofIsNotValid');
  }, LONG);
});
