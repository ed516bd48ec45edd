/**
 * Commander wiring of the proof-by-query commands (iden3), attached to the issuer, holder and
 * verifier groups by their files: `did create`, iden3 `issue`, `revoke`, `prove-submit`,
 * `request`, `status`. Inputs are parsed with the shared schemas of src/core/pbq/schemas.ts.
 */
import type { Command } from 'commander';
import { parseInput } from '../core/validate.js';
import { readJsonFile } from './io.js';
import { commaList, integerOption, type CliRuntime } from './runtime.js';

/** The iden3 branch of `vc issuer issue` (spec 2.3 response). */
export async function runIden3Issue(rt: CliRuntime, options: { holder?: string | undefined; type?: string | undefined; subject?: string | undefined; output?: string | undefined; context?: string | undefined; schema?: string | undefined }): Promise<void> {
  const { InputError } = await import('../errors.js');
  if (options.holder === undefined) throw new InputError('iden3 issuance needs --holder <did> (the holder DID from `vc holder did create`)', { field: 'holder' });
  const ctx = await rt.ctx();
  const { issueOptionsSchema } = await import('../core/pbq/schemas.js');
  const { issuePbqCredential } = await import('../core/pbq/issue.js');
  let type = options.type;
  if (options.context !== undefined || options.schema !== undefined) {
    if (options.context === undefined || options.schema === undefined) throw new InputError('--context and --schema go together (a JSON-LD context file and a JSON schema file)', { field: 'schema' });
    const { registerCredentialType } = await import('../core/pbq/issue.js');
    type = (await registerCredentialType(ctx, { schema: readJsonFile(options.schema, '--schema'), context: readJsonFile(options.context, '--context'), schemaSource: options.schema, contextSource: options.context })).type;
  }
  const subject = options.subject === undefined ? undefined : readJsonFile(options.subject, '--subject');
  parseInput(issueOptionsSchema.pick({ holderDid: true }), { holderDid: options.holder }, '--holder');
  const parsed = parseInput(issueOptionsSchema, { holderDid: options.holder, type, subject }, options.subject === undefined ? 'options' : `--subject ${options.subject}`);
  const result = await issuePbqCredential(ctx, parsed);
  const status = result.credential.credentialStatus as { revocationNonce?: number } | undefined;
  rt.output.result(result, { outFile: options.output, summary: `issued ${String(type ?? 'PassportCredential')} to ${options.holder} (revocation nonce ${status?.revocationNonce ?? '?'}), state published on chain` });
}

/** `vc issuer did create`, `vc issuer revoke`. */
export function registerPbqIssuerCommands(group: Command, rt: CliRuntime): void {
  group
    .command('did')
    .description("the issuer's iden3 DID")
    .command('create')
    .description('create (or show) the issuer DID; ISSUER_DID selects an existing identity of the wallet')
    .option('-o, --output <file>', 'write the result to this file instead of stdout')
    .addHelpText('after', '\nExamples:\n  $ vc issuer did create\n  $ ISSUER_DID=did:polygonid:polygon:local:2q... vc issuer did create')
    .action(async (options: { output?: string }) => {
      const { createIssuerIdentity } = await import('../core/pbq/did.js');
      const result = await createIssuerIdentity(await rt.ctx());
      rt.output.result(result, { outFile: options.output, summary: `issuer DID did:${result.payload.method}:${result.payload.id}` });
    });

  group
    .command('credentials')
    .description('list the iden3 credentials this issuer issued (completing one an interrupted command left), or print one whole')
    .option('--id <id>', 'print this credential (urn:uuid:...) with its proofs')
    .option('-o, --output <file>', 'write the result to this file instead of stdout')
    .addHelpText('after', '\nExamples:\n  $ vc issuer credentials\n  $ vc issuer credentials --id urn:uuid:6f1c... -o passport.json')
    .action(async (options: { id?: string; output?: string }) => {
      const { listIssuedCredentials } = await import('../core/pbq/issue.js');
      const result = await listIssuedCredentials(await rt.ctx(), { id: options.id });
      rt.output.result(result, { outFile: options.output });
    });

  group
    .command('revoke')
    .description('revoke an iden3 credential by its revocation nonce and publish the new state on chain')
    .requiredOption('--nonce <n>', 'credentialStatus.revocationNonce of the credential', integerOption('--nonce'))
    .option('-o, --output <file>', 'write the result to this file instead of stdout')
    .addHelpText('after', '\nExamples:\n  $ vc issuer revoke --nonce "$(jq .credential.credentialStatus.revocationNonce passport.json)"')
    .action(async (options: { nonce: number; output?: string }) => {
      const { revokeBodySchema } = await import('../core/pbq/schemas.js');
      const { revokePbqCredential } = await import('../core/pbq/issue.js');
      const parsed = parseInput(revokeBodySchema, { nonce: options.nonce }, '--nonce');
      const result = await revokePbqCredential(await rt.ctx(), parsed);
      rt.output.result(result, { outFile: options.output, summary: `revoked nonce ${result.nonce} (tx ${result.txId})` });
    });
}

/** `vc holder did create`, `vc holder prove-submit`. */
export function registerPbqHolderCommands(group: Command, rt: CliRuntime): void {
  group
    .command('did')
    .description("the holder's iden3 DID")
    .command('create')
    .description('create the holder DID (BJJ key and trees in the wallet); returns the stored one when it exists')
    .option('--new', 'create another identity and make it the default')
    .option('-o, --output <file>', 'write the result to this file instead of stdout')
    .addHelpText('after', '\nExamples:\n  $ vc holder did create\n  $ vc holder did create --new --json')
    .action(async (options: { new?: boolean; output?: string }) => {
      const { createHolderIdentity } = await import('../core/pbq/did.js');
      const result = await createHolderIdentity(await rt.ctx(), { new: options.new === true });
      rt.output.result(result, { outFile: options.output, summary: `holder DID ${result.did_String}` });
    });

  group
    .command('prove-submit')
    .description('prove the request\'s query over an iden3 credential (credentialAtomicQueryMTPV2OnChain) and submit it to the UniversalVerifier')
    .requiredOption('--credential <file>', 'the credential (spec 2.3: the issuer response or its .credential)')
    .requiredOption('--request <file>', 'the credential request (spec 2.1)')
    .option('-o, --output <file>', 'write the result to this file instead of stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ vc holder prove-submit --credential passport.json --request request.json
  $ vc holder prove-submit --credential passport.json --request request.json --json | jq .txHash

The proof's challenge is the submitting address (WALLET_KEY), so only that address can use it.
Exit code 1 when the query does not hold, the credential is revoked or the contract rejects.`,
    )
    .action(async (options: { credential: string; request: string; output?: string }) => {
      const { credentialRequestSchema, pbqCredentialSchema } = await import('../core/pbq/schemas.js');
      const { proveAndSubmit } = await import('../core/pbq/prove.js');
      const rawCredential = readJsonFile(options.credential, '--credential') as { credential?: unknown };
      // Accept the issuer's whole response ({message, credential}) as well as the bare credential.
      const credentialJson = typeof rawCredential === 'object' && rawCredential !== null && 'credential' in rawCredential ? rawCredential.credential : rawCredential;
      const credential = parseInput(pbqCredentialSchema, credentialJson, `--credential ${options.credential}`);
      const request = parseInput(credentialRequestSchema, readJsonFile(options.request, '--request'), `--request ${options.request}`);
      const result = await proveAndSubmit(await rt.ctx(), { credential, request });
      rt.output.result(result, { outFile: options.output, summary: `proof for request ${request.id} verified on chain (tx ${result.txHash})` });
    });
}

/** `vc verifier request`, `vc verifier status`. */
export function registerPbqVerifierCommands(group: Command, rt: CliRuntime): void {
  group
    .command('request')
    .description('create a credential request (spec 2.1) and register it on the UniversalVerifier')
    .option('--type <type>', 'credential type to prove (default PassportCredential)')
    .option('--context <url>', 'JSON-LD context URL of the type (default: the bundled one)')
    .option('--field <name>', 'credentialSubject field (default birthDate)')
    .option('--op <op>', 'operator: $eq $ne $lt $gt $in $nin (default $lt)')
    .option('--value <v>', 'value (integer, string, or a,b,c for $in/$nin; default 20010101)')
    .option('--allowed-issuers <list>', 'comma-separated issuer DIDs, or * (default *)', commaList)
    .option('-o, --output <file>', 'write the request to this file instead of stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ vc verifier request -o request.json                            # birthDate $lt 20010101
  $ vc verifier request --field nationality --op '$in' --value NLD,BEL -o request.json
  $ vc verifier request --allowed-issuers "$(vc issuer did create --json | jq -r '"did:\\(.payload.method):\\(.payload.id)"')"`,
    )
    .action(async (options: { type?: string; context?: string; field?: string; op?: string; value?: string; allowedIssuers?: string[]; output?: string }) => {
      const { requestOptionsSchema } = await import('../core/pbq/schemas.js');
      const { createCredentialRequest } = await import('../core/pbq/request.js');
      const parsed = parseInput(
        requestOptionsSchema,
        Object.fromEntries(Object.entries({ type: options.type, context: options.context, field: options.field, op: options.op, value: options.value, allowedIssuers: options.allowedIssuers }).filter(([, v]) => v !== undefined)),
        'options',
      );
      const request = await createCredentialRequest(await rt.ctx(), parsed);
      rt.output.result(request, { outFile: options.output, summary: `request ${request.id} registered on the UniversalVerifier` });
    });

  group
    .command('status')
    .description('read whether an address has a verified proof for a request (UniversalVerifier)')
    .requiredOption('--request <id>', 'request id', integerOption('--request'))
    .requiredOption('--address <address>', 'the submitting address')
    .addHelpText('after', '\nExamples:\n  $ vc verifier status --request 123456789 --address 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    .action(async (options: { request: number; address: string }) => {
      const { requestStatusSchema } = await import('../core/pbq/schemas.js');
      const { readRequestStatus } = await import('../core/pbq/request.js');
      const parsed = parseInput(requestStatusSchema, options, 'options');
      const result = await readRequestStatus(await rt.ctx(), parsed);
      rt.output.result(result, { summary: result.isVerified ? `verified (${result.validatorVersion})` : 'no verified proof' });
      if (!result.isVerified) rt.exitCode = 1;
    });
}
