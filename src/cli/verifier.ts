/**
 * `vc verifier ...`: commander wiring only; the operations live in src/core.
 */
import type { Command } from 'commander';
import { integerOption, type CliRuntime } from './runtime.js';
import { readJsonFile } from './io.js';
import { registerPbqVerifierCommands } from './pbq.js';

/** Registers the `vc verifier` group. */
export function registerVerifierCommands(program: Command, rt: CliRuntime): Command {
  const group = program.command('verifier').description('verify: create on-chain credential requests, check selectively disclosed credentials')
    .addHelpText('after', `\nExamples:\n  $ vc verifier request --field birthDate --op '$lt' --value 20010101 -o request.json\n  $ vc verifier status --request 1234 --address 0xf39F...\n  $ vc verifier nonce\n  $ vc verifier verify --vc disclosed.json`);

  group
    .command('verify')
    .description('verify a selectively disclosed BBS+ credential (exit code 1 when not verified)')
    .requiredOption('--vc <file>', 'the derived credential, or the whole `vc holder disclose` response ({message, vc})')
    .option('--require-nonce', 'reject proofs whose nonce this verifier did not issue (always on with VC_REQUIRE_NONCE=true)')
    .option('-o, --output <file>', 'write the result to this file instead of stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ vc verifier verify --vc disclosed.json
  $ VC_TRUSTED_ISSUERS=did:key:zUC7... vc verifier verify --vc disclosed.json --require-nonce

Checks: the derived proof, bundled contexts only, every field defined, the key belongs to the issuer,
the issuer is trusted (VC_TRUSTED_ISSUERS, * for any), and a nonce issued by \`vc verifier nonce\`
is unused and unexpired (it is used up by a successful verification). A nonce the verifier did not
issue is accepted unless --require-nonce or VC_REQUIRE_NONCE=true.`,
    )
    .action(async (options: { vc: string; requireNonce?: boolean; output?: string }) => {
      const ctx = await rt.ctx();
      const { parseInput } = await import('../core/validate.js');
      const { VerifyRequestSchema } = await import('../core/sd/schemas.js');
      const { verifySelectiveDisclosure } = await import('../core/sd/verify.js');
      const input = readJsonFile(options.vc, '--vc') as Record<string, unknown>;
      // Accept the holder's whole response as well as the bare credential.
      const wrapped = typeof input === 'object' && input !== null && !('proof' in input) && 'vc' in input ? input : { vc: input };
      const { vc } = parseInput(VerifyRequestSchema, { vc: wrapped.vc }, `--vc ${options.vc}`);
      const result = await verifySelectiveDisclosure(ctx, { vc, requireNonce: options.requireNonce === true });
      rt.output.result(result, { outFile: options.output, summary: result.verified ? result.message : undefined });
      if (!result.verified) {
        rt.output.failure(result.message);
        rt.exitCode = 1;
      }
    });

  group
    .command('nonce')
    .description('issue a one-time nonce for a holder to bind its selective-disclosure proof to')
    .option('--ttl <seconds>', 'validity in seconds, at most 86400 (default 600)', integerOption('--ttl'))
    .option('-o, --output <file>', 'write the result to this file instead of stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ vc verifier nonce                                   # {"nonce": "...", "expiresAt": "..."}
  $ vc holder disclose --type PassportCredential --keys name --nonce "$(vc verifier nonce --json | jq -r .nonce)" -o d.json
  $ vc verifier verify --vc d.json                      # uses the nonce up: verifying d.json again fails`,
    )
    .action(async (options: { ttl?: number; output?: string }) => {
      const ctx = await rt.ctx();
      const { createVerifierNonce, MAX_NONCE_TTL_SECONDS } = await import('../core/sd/verify.js');
      const { InputError } = await import('../errors.js');
      if (options.ttl !== undefined && (options.ttl < 1 || options.ttl > MAX_NONCE_TTL_SECONDS)) {
        throw new InputError(`--ttl expects a number of seconds from 1 to ${MAX_NONCE_TTL_SECONDS} (one day), got ${options.ttl}`, { field: 'ttl' });
      }
      const result = createVerifierNonce(ctx, options.ttl === undefined ? {} : { ttlSeconds: options.ttl });
      rt.output.result(result, { outFile: options.output, summary: `nonce valid until ${result.expiresAt}` });
    });

  registerPbqVerifierCommands(group, rt);
  return group;
}
