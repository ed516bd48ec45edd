/**
 * Global setup of the integration tests: builds the circuits once for the run (they are cached per
 * user, keyed by their sources, so this is a no-op when nothing changed) and deploys the iden3
 * contracts once on an embedded chain in a template wallet home, stopped with its state saved.
 * Each test file that needs a chain copies the template (`templateHome()` in test/helpers.ts): its
 * own node then starts from the saved snapshot, contracts in place, instead of deploying 28
 * contracts again (5-7 s per file).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** A wallet home with the contracts deployed on its stopped embedded chain (copy it, never use it). */
    templateHome: string;
  }
}

function vc(home: string, args: string[]): void {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
  for (const name of ['XDG_CACHE_HOME', 'VC_CIRCUITS_CACHE', 'CIRCUITS_PATH', 'VC_PROVER', 'VC_PROVER_THREADS']) if (process.env[name] !== undefined) env[name] = process.env[name];
  const started = performance.now();
  const result = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'bin', 'vc.js'), '--home', home, '--json', ...args], { cwd: ROOT, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`[test setup] vc ${args.join(' ')} failed (${String(result.status ?? result.signal)}): ${result.stderr}`);
  process.stderr.write(`[test setup] vc ${args.join(' ')}: ${Math.round(performance.now() - started)} ms\n`);
}

export default function prepareChainTemplate(project: TestProject): () => void {
  const home = mkdtempSync(path.join(tmpdir(), 'vc-template-home-'));
  try {
    vc(home, ['circuits', 'build']);
    vc(home, ['chain', 'status']);
    vc(home, ['chain', 'down']);
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
  project.provide('templateHome', home);
  return () => rmSync(home, { recursive: true, force: true });
}
