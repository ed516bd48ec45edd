/**
 * `vc holder ...`: commander wiring only; the operations live in src/core.
 */
import type { Command } from 'commander';
import { commaList, type CliRuntime } from './runtime.js';
import { readJsonFile } from './io.js';
import { registerPbqHolderCommands } from './pbq.js';

interface DiscloseOptions {
  type: string;
  keys: string[];
  nonce?: string;
  credential?: string;
  output?: string;
}

/** Registers the `vc holder` group. */
export function registerHolderCommands(program: Command, rt: CliRuntime): Command {
  const group = program.command('holder').description('hold credentials: create the holder DID, prove a query on chain, disclose selected fields')
    .addHelpText('after', `\nExamples:\n  $ vc holder did create\n  $ vc holder prove-submit --credential passport.json --request request.json\n  $ vc holder disclose --type PassportCredential --keys id,name,nationality --nonce $(vc verifier nonce --json | jq -r .nonce) -o disclosed.json`);

  group
    .command('disclose')
    .description('derive a BBS+ credential revealing only the chosen credentialSubject fields (spec 2.5 response)')
    .requiredOption('--type <type>', 'credential type to disclose from (the latest one the holder keeps)')
    .requiredOption('--keys <list>', 'comma-separated credentialSubject fields to reveal, e.g. id,name,nationality', commaList)
    .option('--nonce <base64>', 'nonce from the verifier (`vc verifier nonce`); random when absent')
    .option('--credential <file>', 'disclose from this BBS+ credential file instead of the stored one')
    .option('-o, --output <file>', 'write the response to this file instead of stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ vc holder disclose --type PassportCredential --keys id,name,nationality -o disclosed.json
  $ vc holder disclose --type PassportCredential --keys nationality --nonce "$(vc verifier nonce --json | jq -r .nonce)"
  $ vc holder disclose --type PassportCredential --keys name --credential sd.json

Fields the credential lacks are ignored. A subject with an id (a DID) is always linked by it.`,
    )
    .action(async (options: DiscloseOptions) => {
      const ctx = await rt.ctx();
      const { deriveSelectiveDisclosure } = await import('../core/sd/disclose.js');
      const result = await deriveSelectiveDisclosure(ctx, {
        type: options.type,
        keys: options.keys,
        nonce: options.nonce,
        credential: options.credential === undefined ? undefined : readJsonFile(options.credential, '--credential'),
        credentialSource: options.credential === undefined ? undefined : `--credential ${options.credential}`,
      });
      const revealed = Object.keys(result.vc.credentialSubject as Record<string, unknown>);
      rt.output.result(result, { outFile: options.output, summary: `disclosed ${revealed.length} field${revealed.length === 1 ? '' : 's'} (${revealed.join(', ')}) with a BbsBlsSignatureProof2020` });
    });

  group
    .command('import-sd')
    .description("keep a BBS+ credential received from an issuer (checks the issuer's signature first)")
    .requiredOption('--credential <file>', 'the BBS+ credential (issuer output, spec 2.4)')
    .addHelpText(
      'after',
      `
Examples:
  $ vc issuer issue --format bbs -o sd.json --home /tmp/issuer
  $ vc holder import-sd --credential sd.json      # then: vc holder disclose --type PassportCredential ...`,
    )
    .action(async (options: { credential: string }) => {
      const ctx = await rt.ctx();
      const { storeSelectiveDisclosureCredential } = await import('../core/sd/disclose.js');
      const result = await storeSelectiveDisclosureCredential(ctx, { credential: readJsonFile(options.credential, '--credential'), source: `--credential ${options.credential}` });
      rt.output.result(result, { summary: `kept ${result.type} from ${result.issuer.slice(0, 32)}...` });
    });

  registerPbqHolderCommands(group, rt);
  return group;
}
