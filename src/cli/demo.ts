/**
 * `vc demo`: an interactive walkthrough of both flows (inquirer prompts for the flow, the fields
 * to reveal and the query), or non-interactive with --yes. The work is done by src/core/demoWalkthrough.ts.
 */
import { Option, type Command } from 'commander';
import { InputError } from '../errors.js';
import type { CliRuntime } from './runtime.js';
import type { DemoFlow, DemoOptions, DemoQuery, DemoResult } from '../core/demoWalkthrough.js';

interface DemoCliOptions {
  flow?: DemoFlow;
  yes?: boolean;
}

/** Ctrl-C at a prompt is the user's choice, not a crash. */
async function askOptions(initialFlow: DemoFlow | undefined): Promise<DemoOptions> {
  try {
    return await promptOptions(initialFlow);
  } catch (error) {
    if ((error as Error).name === 'ExitPromptError') throw new InputError('vc demo cancelled at a prompt', { field: 'demo' });
    throw error;
  }
}

async function promptOptions(initialFlow: DemoFlow | undefined): Promise<DemoOptions> {
  const { DEMO_DEFAULTS, DEMO_REVEALABLE_KEYS } = await import('../core/demoWalkthrough.js');
  const { default: inquirer } = await import('inquirer');
  const flow: DemoFlow =
    initialFlow ??
    (
      await inquirer.prompt<{ flow: DemoFlow }>([
        {
          type: 'list',
          name: 'flow',
          message: 'Which flow do you want to run?',
          choices: [
            { name: 'both flows', value: 'both' },
            { name: 'proof by query (iden3 DIDs, on-chain zero-knowledge proof)', value: 'pbq' },
            { name: 'selective disclosure (BBS+)', value: 'sd' },
          ],
          default: 'both',
        },
      ])
    ).flow;
  let revealKeys = DEMO_DEFAULTS.revealKeys;
  if (flow !== 'pbq') {
    revealKeys = (
      await inquirer.prompt<{ keys: string[] }>([
        {
          type: 'checkbox',
          name: 'keys',
          message: 'Which passport fields should the holder reveal?',
          choices: DEMO_REVEALABLE_KEYS.map((key) => ({ name: key, value: key, checked: DEMO_DEFAULTS.revealKeys.includes(key) })),
          validate: (keys: readonly unknown[]) => (keys.length > 0 ? true : 'choose at least one field'),
        },
      ])
    ).keys;
  }
  let query: DemoQuery = DEMO_DEFAULTS.query;
  if (flow !== 'sd') {
    const answers = await inquirer.prompt<{ op: DemoQuery['op']; value: string }>([
      {
        type: 'list',
        name: 'op',
        message: 'Query on the birth date (YYYYMMDD): which operator?',
        choices: ['$lt', '$gt', '$eq', '$ne'],
        default: '$lt',
      },
      {
        type: 'input',
        name: 'value',
        message: 'Compared with which date (YYYYMMDD)?',
        default: String(DEMO_DEFAULTS.query.value),
        validate: (value: string) => (/^\d{8}$/.test(value.trim()) ? true : 'expected a date as YYYYMMDD'),
      },
    ]);
    query = { field: 'birthDate', op: answers.op, value: Number(answers.value.trim()) };
  }
  return { flow, revealKeys, query };
}

/** The end of the story: what each flow showed, a few lines each (the whole result is the JSON). */
function summarise(result: DemoResult): Array<{ ok: boolean; text: string }> {
  const parts: Array<{ ok: boolean; text: string }> = [];
  if (result.sd) {
    const revealed = `revealed  ${Object.keys(result.sd.disclosed).join(', ')}`;
    const hidden = `hidden    ${result.sd.hidden.length === 0 ? '(none)' : result.sd.hidden.join(', ')}`;
    parts.push(
      result.sd.verified
        ? { ok: true, text: `Selective disclosure verified\n    ${revealed}\n    ${hidden}` }
        : { ok: false, text: `Selective disclosure NOT verified: ${result.sd.message}\n    ${revealed}` },
    );
  }
  if (result.pbq) {
    const field = result.pbq.statement.split(' ', 1)[0];
    parts.push(
      result.pbq.onChain
        ? { ok: true, text: `Proof by query verified on chain (request ${result.pbq.requestId})\n    proven    ${result.pbq.statement}; the ${field} never left the holder's wallet` }
        : { ok: false, text: `Proof by query NOT verified on chain (request ${result.pbq.requestId}, tx ${result.pbq.txHash})` },
    );
  }
  return parts;
}

/** Registers `vc demo`. */
export function registerDemoCommand(program: Command, rt: CliRuntime): void {
  program
    .command('demo')
    .description('walk through both flows for real on the embedded default (interactive, or --yes)')
    .addOption(new Option('--flow <flow>', 'which flow to run').choices(['pbq', 'sd', 'both']))
    .option('-y, --yes', 'run non-interactively with the defaults (both flows unless --flow)')
    .addHelpText(
      'after',
      `
Examples:
  $ vc demo                      # asks which flow, which fields to reveal, which query
  $ vc demo --yes                # both flows, defaults: reveal id,name,nationality; birthDate $lt 20010101
  $ vc demo --flow sd --yes --json`,
    )
    .action(async (options: DemoCliOptions) => {
      const { DEMO_DEFAULTS } = await import('../core/demoWalkthrough.js');
      const { invokeOperation } = await import('../core/operation.js');
      const { demo } = await import('../core/operations/systemOperations.js');
      let demoOptions: DemoOptions;
      if (options.yes === true) {
        demoOptions = { flow: options.flow ?? 'both', ...DEMO_DEFAULTS };
      } else if (!rt.stdinIsTerminal) {
        throw new InputError('vc demo asks questions on a terminal; run it with --yes to use the defaults', { field: 'yes' });
      } else {
        demoOptions = await askOptions(options.flow);
      }
      const ctx = await rt.ctx();
      rt.output.info(
        demoOptions.flow === 'sd'
          ? 'vc demo: an Issuer gives a Holder a passport credential; the Holder shows a Verifier only the fields it chooses.'
          : 'vc demo: an Issuer gives a Holder a passport credential; the Holder proves facts from it to a Verifier.',
      );
      const result = await invokeOperation(ctx, demo, demoOptions);
      // On a terminal the story and its summary are the result; the JSON is for --json and pipes.
      rt.output.result(result, { summaryOnTerminal: true });
      rt.output.info('');
      for (const part of summarise(result)) {
        if (part.ok) rt.output.success(part.text);
        else rt.output.failure(part.text);
      }
      const total = result.steps.reduce((sum, step) => sum + step.ms, 0);
      rt.output.info(`  ${result.steps.length} steps in ${(total / 1000).toFixed(1)} s${rt.output.stdoutIsTerminal ? '; the whole result as JSON: vc demo --yes --json' : ''}`);
      if (!result.ok) rt.exitCode = 1;
    });
}
