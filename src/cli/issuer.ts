/**
 * `vc issuer ...`: commander wiring only; the operations live in src/core.
 */
import { Option, type Command } from 'commander';
import type { CliRuntime } from './runtime.js';
import { readJsonFile } from './io.js';
import { registerPbqIssuerCommands, runIden3Issue } from './pbq.js';

interface IssueOptions {
  format: 'iden3' | 'bbs';
  type: string;
  subject?: string;
  holder?: string;
  expires?: string;
  output?: string;
  context?: string;
  schema?: string;
}

/** Registers the `vc issuer` group. */
export function registerIssuerCommands(program: Command, rt: CliRuntime): Command {
  const group = program.command('issuer').description('issue credentials: iden3 (BJJ signature + on-chain state, for proof by query) or BBS+ (for selective disclosure)')
    .addHelpText('after', `\nExamples:\n  $ vc issuer did create\n  $ vc issuer issue --holder did:polygonid:polygon:local:2q... -o passport.json\n  $ vc issuer issue --format bbs --subject fixtures/subjects/passport.json -o sd-passport.json\n  $ vc issuer revoke --nonce 12345`);

  group
    .command('issue')
    .description('issue a credential: iden3 (for proof by query, needs --holder) or BBS+ (--format bbs, for selective disclosure)')
    .addOption(new Option('--format <format>', 'credential format').choices(['iden3', 'bbs']).default('iden3'))
    .option('--type <type>', 'credential type', 'PassportCredential')
    .option('--subject <file>', 'JSON file with the credentialSubject fields (default: the sample passport, fixtures/subjects/passport.json)')
    .option('--holder <did>', "the holder's DID (credentialSubject.id)")
    .option('--expires <date>', 'bbs: expirationDate of the credential (ISO 8601, e.g. 2030-12-31)')
    .option('--context <file>', 'iden3: JSON-LD context file of a type that is not bundled (with --schema)')
    .option('--schema <file>', 'iden3: JSON schema file (iden3 JsonSchema2023 with $metadata) of that type (with --context)')
    .option('-o, --output <file>', 'write the credential to this file instead of stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ vc issuer issue --format bbs -o sd.json                        # BBS+ PassportCredential (sample subject)
  $ vc issuer issue --format bbs --subject alice.json --holder did:example:alice -o sd.json

A BBS+ credential is signed with the key derived from IDP_BLS_SIGN_SEED_PHRASE (or the wallet's
own phrase), issued under that key's did:key, and kept by this wallet's holder for \`vc holder disclose\`.
Every subject field must be defined by a bundled JSON-LD context, otherwise issuing is refused.`,
    )
    .action(async (options: IssueOptions) => {
      const ctx = await rt.ctx();
      if (options.format === 'bbs') {
        const { issueSelectiveDisclosureCredential } = await import('../core/sd/issue.js');
        const subject = options.subject === undefined ? undefined : (readJsonFile(options.subject, '--subject') as Record<string, unknown>);
        const credential = await issueSelectiveDisclosureCredential(ctx, {
          type: options.type,
          subject,
          holder: options.holder,
          expirationDate: options.expires,
          subjectSource: options.subject === undefined ? undefined : `--subject ${options.subject}`,
        });
        rt.output.result(credential, { outFile: options.output, summary: `issued ${options.type} (BbsBlsSignature2020) by ${String(credential.issuer).slice(0, 32)}...; kept by the holder` });
        return;
      }
      await runIden3Issue(rt, options);
    });

  group
    .command('bbs-key')
    .description("show the issuer's BBS+ public key (did:key, BLS12-381 G2); the seed phrase only with --show-secret")
    .option('--show-secret', 'also print the BIP39 seed phrase the key derives from (a secret: keep it offline)')
    .option('-o, --output <file>', 'write the result to this file instead of stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ vc issuer bbs-key                      # did, verificationMethod, publicKeyBase58, seedSource
  $ vc issuer bbs-key --show-secret -o key-backup.json

The key derives from IDP_BLS_SIGN_SEED_PHRASE; without it, a 12-word phrase is generated once and
kept in the wallet store (0600). Add the did to the verifier's VC_TRUSTED_ISSUERS to trust it.`,
    )
    .action(async (options: { showSecret?: boolean; output?: string }) => {
      const ctx = await rt.ctx();
      const { describeIssuerBlsKey } = await import('../core/sd/issuerKey.js');
      const description = await describeIssuerBlsKey(ctx, { showSecret: options.showSecret === true });
      rt.output.result(description, { outFile: options.output, summary: `BBS+ issuer key ${description.did.slice(0, 32)}... (seed from ${description.seedSource})` });
    });

  registerPbqIssuerCommands(group, rt);
  return group;
}
