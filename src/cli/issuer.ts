/**
 * `vc issuer ...`: commander wiring only; the operations live in src/core.
 */
import type { Command } from 'commander';
import type { CliRuntime } from './runtime.js';

/** Registers the `vc issuer` group. */
export function registerIssuerCommands(program: Command, rt: CliRuntime): Command {
  const group = program.command('issuer').description('issue credentials: iden3 (BJJ signature + on-chain state, for proof by query) or BBS+ (for selective disclosure)');
  void rt;
  return group;
}
