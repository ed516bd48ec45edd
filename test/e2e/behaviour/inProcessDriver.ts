/**
 * The in-process Driver: each call runs the operation of the table with invokeOperation, the one
 * way the CLI and the server call core. Errors become DriverCallErrors carrying the VcError's HTTP
 * status, code, field (a path in the operation's input) and exit code.
 */
import { parseConfig, type RawVariables } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { invokeOperation } from '../../../src/core/operation.js';
import { operationNamed } from '../../../src/core/operations/index.js';
import { isVcError } from '../../../src/errors.js';
import { DriverCallError, driverOver, type Driver } from './driver.js';

/** Stops the local chain node a proof-by-query operation may have started for this wallet. */
export async function stopEmbeddedChain(ctx: Context): Promise<void> {
  const { stopLocalNode } = await import('../../../src/chain/node/lifecycle.js');
  await stopLocalNode(ctx, { persist: false }).catch(() => undefined);
}

/** Names of the classes an error is an instance of, most specific first. */
function classChain(error: object): string[] {
  const names: string[] = [];
  for (let proto = Object.getPrototypeOf(error) as object | null; proto !== null && proto !== Error.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    names.push((proto.constructor as { name: string }).name);
  }
  return names;
}

/** A driver calling the core operations in this process, on a wallet at `home`. */
export function createInProcessDriver(vars: RawVariables, home: string): Driver {
  const ctx = new Context({ config: parseConfig(vars, home) });
  return driverOver(
    'in-process',
    async (name, input) => {
      try {
        return await invokeOperation(ctx, operationNamed(name), input);
      } catch (error) {
        if (isVcError(error)) throw new DriverCallError(error.message, error.httpStatus, error.code, error.field, error.exitCode, classChain(error));
        throw error;
      }
    },
    async () => {
      await stopEmbeddedChain(ctx);
      await ctx.close();
    },
  );
}
