/**
 * /healthz's circuits answer against `vc circuits status` and against what a proof uses
 * (ensureCircuits), on a built set in a temporary cache. The files are placeholders: only what
 * each function says of them is compared, nothing is proved with them.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CIRCUIT_FILES, circuitsInUseComplete, circuitsStatus, ensureCircuits } from '../../src/circuits/build.js';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { checkHealth } from '../../src/core/health.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir('vc-health-circuits-');
afterAll(() => tmp.cleanup());

function newContext(): Context {
  return new Context({ config: parseConfig({}, path.join(tmp.dir, 'home')), env: { ...process.env, VC_CIRCUITS_CACHE: path.join(tmp.dir, 'cache') } });
}

describe('/healthz circuits: the same answer as vc circuits status, and as a proof gets', () => {
  it('a built set whose build.json is unreadable: status and ensureCircuits fail, so health must not say present', async () => {
    const ctx = newContext();
    try {
      const planned = await circuitsStatus(ctx);
      for (const circuit of planned.circuits) {
        mkdirSync(circuit.dir, { recursive: true });
        for (const name of [CIRCUIT_FILES.wasm, CIRCUIT_FILES.r1cs, CIRCUIT_FILES.zkey, CIRCUIT_FILES.verificationKey, CIRCUIT_FILES.manifest]) {
          writeFileSync(path.join(circuit.dir, name), name.endsWith('.json') ? '{}' : 'x');
        }
      }
      expect((await circuitsStatus(ctx)).upToDate).toBe(true);
      expect(await circuitsInUseComplete(ctx)).toBe(true);
      // What held: a circuit file removed while serving is seen at the next probe (the plan is cached, not the answer).
      rmSync(path.join(planned.circuits[0]!.dir, CIRCUIT_FILES.zkey));
      expect((await checkHealth(ctx, 'all')).circuits.present).toBe(false);
      writeFileSync(path.join(planned.circuits[0]!.dir, CIRCUIT_FILES.zkey), 'x');

      // build.json cut short (a copy or a disk that failed): every proof fails to find its circuits...
      writeFileSync(path.join(planned.circuits[0]!.dir, CIRCUIT_FILES.manifest), '{"key": "abc", "stat');
      await expect(circuitsStatus(ctx)).rejects.toThrow();
      const fresh = newContext();
      await expect(ensureCircuits(fresh)).rejects.toThrow();
      await fresh.close();
      // ...and /healthz, which said degraded for it before the plan was cached, now says ok.
      const health = await checkHealth(ctx, 'all');
      expect(health.circuits.present).toBe(false);
    } finally {
      await ctx.close();
    }
  });
});
