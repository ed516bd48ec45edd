/**
 * `vc holder ...`: commander wiring only; the operations live in src/core.
 */
import type { Command } from 'commander';
import type { CliRuntime } from './runtime.js';

/** Registers the `vc holder` group. */
export function registerHolderCommands(program: Command, rt: CliRuntime): Command {
  const group = program.command('holder').description('hold credentials: create the holder DID, prove a query on chain, disclose selected fields');
  void rt;
  return group;
}
