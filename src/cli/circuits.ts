/**
 * `vc circuits build|status|fetch`: the circuit build pipeline and the official circuit files.
 */
import type { Command } from 'commander';
import type { CircuitsInfo } from '../core/circuits.js';
import type { CliRuntime } from './runtime.js';

function summarise(info: CircuitsInfo): string {
  const parts = info.circuits.map((c) => `${c.id}${c.statistics ? ` (${c.statistics.constraints.toLocaleString('en-US')} constraints)` : ''}`);
  const kind = info.source === 'configured' ? 'CIRCUITS_PATH' : info.development ? 'development keys' : 'built';
  return `${parts.join(', ')} in ${info.dir} [${kind}]`;
}

/** Registers `vc circuits build|status|fetch`. */
export function registerCircuitsCommands(program: Command, rt: CliRuntime): void {
  const group = program
    .command('circuits')
    .description('build the zero-knowledge circuits (development keys) or fetch the official ones')
    .addHelpText('after', `\nExamples:\n  $ vc circuits status\n  $ vc circuits build          # compile + development setup, cached per user\n  $ vc circuits fetch --dir ~/circuits && CIRCUITS_PATH=~/circuits vc holder prove-submit ...`);

  group
    .command('build')
    .description('compile the circuits with circom2, run a development trusted setup, export verifiers (cached)')
    .option('--force', 'rebuild even when the cache has these sources')
    .addHelpText('after', '\nExamples:\n  $ vc circuits build\n  $ vc circuits build --force --json')
    .action(async (options: { force?: boolean }) => {
      const ctx = await rt.ctx();
      const { buildCircuits } = await import('../core/circuits.js');
      const info = await buildCircuits(ctx, { force: options.force === true });
      const what = info.built.length === 0 ? 'up to date' : `built ${info.built.join(', ')}`;
      rt.output.result(info, { summary: `${what}: ${summarise(info)}` });
      if (info.development) rt.output.warn('development keys: for local chains only, never for a public network');
    });

  group
    .command('status')
    .description('where the circuit files are, cache keys, constraint counts, development or official')
    .addHelpText('after', '\nExample:\n  $ vc circuits status --json | jq ".circuits[].statistics"')
    .action(async () => {
      const ctx = await rt.ctx();
      const { circuitsStatus } = await import('../core/circuits.js');
      const status = await circuitsStatus(ctx);
      rt.output.result(status, {
        summary: status.upToDate ? summarise(status) : `not built yet (run \`vc circuits build\`; ${status.dir})`,
      });
    });

  group
    .command('fetch')
    .description('download the official iden3 circuit files (resumable) for real networks; use them with CIRCUITS_PATH')
    .option('--dir <dir>', 'target directory', 'circuits-official')
    .option('--url <url>', 'archive URL (default: the archive the js-sdk documents)')
    .option('--sha256 <hex>', 'expected sha256 of the archive')
    .addHelpText(
      'after',
      '\nThe archive is checked against --sha256, else against URL.sha256 when the server publishes one;\notherwise the result says it is unverified.\n\nExample:\n  $ vc circuits fetch --dir ~/circuits && export CIRCUITS_PATH=~/circuits',
    )
    .action(async (options: { dir: string; url?: string; sha256?: string }) => {
      const ctx = await rt.ctx();
      const { fetchOfficialCircuits } = await import('../core/circuits.js');
      const result = await fetchOfficialCircuits(ctx, {
        dir: options.dir,
        ...(options.url !== undefined ? { url: options.url } : {}),
        ...(options.sha256 !== undefined ? { sha256: options.sha256 } : {}),
      });
      rt.output.result(result, { summary: `extracted ${result.extracted.length} files into ${result.dir}; set CIRCUITS_PATH=${result.dir}` });
      if (!result.checksum.verified) rt.output.warn(`archive not verified against a published checksum (sha256 ${result.sha256})`);
    });
}
