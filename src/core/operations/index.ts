/**
 * Every operation of vc, by name: the table the CLI, the HTTP server, the OpenAPI documents, the
 * README's command table and the behavioural tests are derived from.
 */
import type { AnyOperation } from '../operation.js';
import * as chain from './chainOperations.js';
import * as circuits from './circuitOperations.js';
import * as documents from './documentOperations.js';
import * as holder from './holderOperations.js';
import * as iden3comm from './iden3commOperations.js';
import * as pbq from './pbqOperations.js';
import * as sd from './sdOperations.js';
import * as status from './statusOperations.js';
import * as system from './systemOperations.js';
import * as vcapi from './vcApiOperations.js';
import * as vp from './vpOperations.js';
import * as wallet from './walletOperations.js';

export { chain, circuits, documents, holder, iden3comm, pbq, sd, status, system, vcapi, vp, wallet };

/** All operations (each module's exports are its declarations), by module, then by name: the same order under every loader. */
export const OPERATIONS: readonly AnyOperation[] = [sd, vp, vcapi, status, pbq, iden3comm, holder, wallet, documents, chain, circuits, system].flatMap((group) =>
  (Object.values(group) as AnyOperation[]).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
);

/** The operation of a name; throws for an unknown one (a bug in a table). */
export function operationNamed(name: string): AnyOperation {
  const found = OPERATIONS.find((operation) => operation.name === name);
  if (found === undefined) throw new Error(`no operation ${name}`);
  return found;
}
