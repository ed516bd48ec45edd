/**
 * Starting the front (./front.ts) of a node that already answers on its private loopback port:
 * a detached `node frontMain.js` listening on the node's public address. Its environment is
 * scrubbed (PATH only: no wallet key reaches a detached process), its output goes to front.log.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { InternalError } from '../../errors.js';
import { packageRoot } from '../../paths.js';
import { probeChainId } from '../jsonRpc.js';
import { connectHost } from './ports.js';
import { isListeningOn, killQuietly } from './process.js';
import { stateFiles } from './snapshots.js';

const FRONT_START_TIMEOUT_MS = 15_000;

/** The compiled front entry: next to this module, or in dist/ when run from the sources (tests). */
function frontEntry(): string {
  const here = fileURLToPath(import.meta.url);
  const sibling = path.join(path.dirname(here), 'frontMain.js');
  if (existsSync(sibling)) return sibling;
  const root = packageRoot();
  const built = path.join(root, 'dist', path.relative(root, path.dirname(here)), 'frontMain.js');
  if (existsSync(built)) return built;
  throw new InternalError(`the chain node's front ${built} is missing: run npm run build`);
}

export type FrontStart = { outcome: 'started'; pid: number; rpcUrl: string } | { outcome: 'port-in-use' | 'answered-by-another' } | { outcome: 'failed'; reason: string };

/** Starts the front on host:port relaying to the node (pid, private URL); never leaves a stray front behind on failure. */
export async function launchFront(options: { host: string; port: number; nodeUrl: string; nodePid: number; stateDir: string; chainId: number }): Promise<FrontStart> {
  const files = stateFiles(options.stateDir);
  const args = [frontEntry(), '--listen', `${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}`, '--node', options.nodeUrl, '--node-pid', String(options.nodePid), '--snapshot', files.served];
  const logFd = openSync(files.frontLog, 'w', 0o600);
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', logFd, logFd], cwd: options.stateDir, env: { PATH: process.env.PATH ?? '' } });
  closeSync(logFd);
  let exited = false;
  let spawnError: Error | undefined;
  child.once('exit', () => {
    exited = true;
  });
  child.once('error', (error) => {
    spawnError = error;
  });
  child.unref();
  const rpcUrl = `http://${connectHost(options.host)}:${options.port}`;
  const deadline = Date.now() + FRONT_START_TIMEOUT_MS;
  let answeredByAnother = false;
  while (Date.now() < deadline && !exited && spawnError === undefined) {
    if ((await probeChainId(rpcUrl, 500)) === options.chainId) {
      // Only an answer from the front we spawned counts (where /proc tells).
      if (isListeningOn(child.pid!, options.port) === false) answeredByAnother = true;
      else return { outcome: 'started', pid: child.pid!, rpcUrl };
    }
    await sleep(25);
  }
  if (spawnError !== undefined) return { outcome: 'failed', reason: `cannot start ${process.execPath}: ${spawnError.message}` };
  if (!exited) {
    killQuietly(child.pid!, 'SIGKILL');
    return answeredByAnother ? { outcome: 'answered-by-another' } : { outcome: 'failed', reason: `the front did not answer on ${rpcUrl} within ${FRONT_START_TIMEOUT_MS / 1000} s (log: ${files.frontLog})` };
  }
  let log = '';
  try {
    log = readFileSync(files.frontLog, 'utf8').trim();
  } catch {
    // no log
  }
  if (/EADDRINUSE/.test(log)) return { outcome: 'port-in-use' };
  return { outcome: 'failed', reason: `the front exited: ${log.split('\n').slice(-3).join(' | ') || 'no output'} (log: ${files.frontLog})` };
}
