/**
 * The tables every surface is derived from: each operation is reachable, each command and route
 * is an operation of the table, and the README's table is the generated one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMMANDS, LOCAL_COMMANDS } from '../../src/cli/commands.js';
import { flagsOf, operationsOfCommand } from '../../src/cli/operationCommand.js';
import { renderOperationTable, withOperationTable } from '../../src/cli/reference.js';
import { OPERATIONS } from '../../src/core/operations/index.js';
import { ROUTES } from '../../src/http/routes.js';
import { ROOT } from '../helpers.js';

const commandOperations = COMMANDS.flatMap((command) => operationsOfCommand(command).map((entry) => entry.operation));

describe('the operation table', () => {
  it('names each operation once and gives each an object input', () => {
    const names = OPERATIONS.map((operation) => operation.name);
    expect(new Set(names).size).toBe(names.length);
    for (const operation of OPERATIONS) {
      expect(operation.name).toMatch(/^[a-z]+\.[a-zA-Z][a-zA-Z0-9]*$/);
      expect(operation.input, operation.name).toBeInstanceOf(z.ZodObject);
      expect(operation.summary.length, operation.name).toBeGreaterThan(10);
    }
  });

  it('reaches every operation from the command line or HTTP, and nothing else', () => {
    for (const operation of OPERATIONS) {
      const reachable = commandOperations.includes(operation) || LOCAL_COMMANDS.some((local) => local.operation === operation) || ROUTES.some((route) => route.operation === operation || route.textAlternative?.operation === operation);
      expect(reachable, `${operation.name} has no command and no route`).toBe(true);
    }
    for (const operation of [...commandOperations, ...ROUTES.map((route) => route.operation)]) expect(OPERATIONS).toContain(operation);
  });

  it('gives every field of a command a distinct flag with a description', () => {
    for (const command of COMMANDS) {
      for (const { operation } of operationsOfCommand(command)) {
        const flags = flagsOf(command, operation);
        expect(new Set(flags.map((info) => info.flag)).size, command.path).toBe(flags.length);
        for (const info of flags) expect(info.description, `${command.path} --${info.flag}`).not.toBe(info.field);
      }
    }
  });

  it('gives each field the kind of flag its schema says (a number, a list, a switch, a file)', () => {
    const kinds = (path: string): Record<string, string> => {
      const command = COMMANDS.find((candidate) => candidate.path === path)!;
      return Object.fromEntries(flagsOf(command, command.operation).map((info) => [info.flag, info.kind]));
    };
    expect(kinds('verifier status')).toEqual({ request: 'integer', address: 'text' });
    expect(kinds('holder disclose')).toEqual({ type: 'text', id: 'text', keys: 'list', nonce: 'text', credential: 'file' });
    expect(kinds('verifier request')).toMatchObject({ op: 'text', value: 'text', 'allowed-issuers': 'list' });
    expect(kinds('issuer revoke')).toEqual({ 'revocation-nonce': 'integer' });
    expect(kinds('chain deploy')).toEqual({ force: 'switch', 'state-transition-verifier': 'file', 'mtp-verifier': 'file', 'official-verifiers': 'switch', 'allow-dev-verifiers': 'switch' });
  });

  it('keeps secrets and the holder-side credential off the routes', () => {
    const bbsKey = ROUTES.find((route) => route.path === '/bbs-key')!;
    expect(bbsKey.omit).toContain('showSecret');
    const disclose = ROUTES.find((route) => route.path === '/generate-selective-disclosure-vc')!;
    expect(disclose.omit).toContain('credential');
    // No route runs what deletes or deploys.
    for (const route of ROUTES) expect(['chain.reset', 'chain.deploy', 'chain.down', 'circuits.build', 'circuits.fetch', 'config.show', 'demo.run']).not.toContain(route.operation.name);
  });

  it('is what README.md shows (run `npm run docs` after changing a table)', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(withOperationTable(readme)).toBe(readme);
    const table = renderOperationTable();
    for (const command of [...COMMANDS, ...LOCAL_COMMANDS]) expect(table).toContain(`\`vc ${command.path}`);
    for (const route of ROUTES) expect(table).toContain(`\`${route.method} ${route.path}\``);
  });
});
