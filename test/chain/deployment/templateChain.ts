/**
 * A deployment test's home: a copy of the run's template home (its chain deployed), the contexts
 * the file opens on it (closed when the file ends), and its node stopped and its directory removed
 * then.
 */
import path from 'node:path';
import { afterAll } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { stopLocalNode } from '../../../src/chain/node/lifecycle.js';
import { tempDir, templateHome } from '../../helpers.js';

export function templateChainHome(prefix: string): { dir: string; home: string; newContext: (vars?: Record<string, string>, at?: string) => Context } {
  const tmp = tempDir(prefix);
  const home = templateHome(path.join(tmp.dir, 'home'));
  const contexts: Context[] = [];
  afterAll(async () => {
    for (const ctx of contexts) await ctx.close();
    const ctx = new Context({ config: parseConfig({}, home) });
    try {
      await stopLocalNode(ctx, { persist: false });
    } finally {
      await ctx.close();
    }
    tmp.cleanup();
  }, 60_000);
  return {
    dir: tmp.dir,
    home,
    newContext: (vars = {}, at = home) => {
      const ctx = new Context({ config: parseConfig(vars, at) });
      contexts.push(ctx);
      return ctx;
    },
  };
}
