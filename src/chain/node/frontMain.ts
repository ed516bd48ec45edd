/**
 * The front's process (./front.ts), spawned detached by ./frontLaunch.ts:
 *   node frontMain.js --listen HOST:PORT --node URL --node-pid PID --snapshot FILE
 * Its output goes to <state dir>/front.log. It exits when the node's process is gone, on SIGTERM,
 * or after a failed save (having killed the node).
 */
import { startFront } from './front.js';

function argument(name: string): string {
  const index = process.argv.indexOf(name);
  const value = index < 0 ? undefined : process.argv[index + 1];
  if (value === undefined) {
    process.stderr.write(`vc chain front: ${name} is required\n`);
    process.exit(2);
  }
  return value;
}

const listen = argument('--listen');
const separator = listen.lastIndexOf(':');
const log = (line: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
};

try {
  const { stopped } = await startFront({
    host: listen.slice(0, separator).replace(/^\[(.*)\]$/, '$1'),
    port: Number(listen.slice(separator + 1)),
    nodeUrl: argument('--node'),
    nodePid: Number(argument('--node-pid')),
    snapshotFile: argument('--snapshot'),
    log,
  });
  process.once('SIGTERM', () => process.exit(0));
  process.once('SIGINT', () => process.exit(0));
  await stopped;
  process.exit(0);
} catch (error) {
  // EADDRINUSE is read by the launcher from this log.
  log(`cannot start: ${(error as { code?: string }).code ?? ''} ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
