/**
 * `vc verifier ...`: commander wiring only; the operations live in src/core.
 */
import type { Command } from 'commander';
import type { CliRuntime } from './runtime.js';

/** Registers the `vc verifier` group. */
export function registerVerifierCommands(program: Command, rt: CliRuntime): Command {
  const group = program.command('verifier').description('verify: create on-chain credential requests, check selectively disclosed credentials');
  void rt;
  return group;
}
