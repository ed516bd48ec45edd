/**
 * Operations about vc itself: readiness of a service, the effective configuration, the demo.
 */
import { z } from 'zod';
import { redactUrls } from '../../errors.js';
import { defineOperation } from '../operation.js';
import { QUERY_OPERATORS } from '../pbq/pbqSchemas.js';

export const health = defineOperation({
  name: 'system.health',
  summary: 'readiness of the service: chain reachable (or startable), circuit files present; never starts anything',
  input: z.strictObject({ role: z.string().describe('the role that answers') }),
  result: z.object({
    status: z.enum(['ok', 'degraded']),
    role: z.string(),
    version: z.string(),
    chain: z.object({ embedded: z.boolean(), chainId: z.number(), reachable: z.boolean(), state: z.string(), problem: z.string().optional() }),
    circuits: z.object({ present: z.boolean(), problem: z.string().optional() }),
  }),
  mutates: false,
  run: async (ctx, input) => {
    const { checkHealth } = await import('../health.js');
    return checkHealth(ctx, input.role);
  },
});

export const configShow = defineOperation({
  name: 'config.show',
  summary: 'the effective configuration, secrets masked (URLs by their origin: API keys often sit in their path)',
  input: z.strictObject({}),
  mutates: false,
  run: async (ctx) => {
    const { config } = ctx;
    const mask = (value: string | undefined): string | null => (value === undefined ? null : '(set, hidden)');
    const maskUrl = (value: string | undefined): string | null => (value === undefined ? null : redactUrls(value));
    return {
      ...config,
      chain: { ...config.chain, rpcUrl: maskUrl(config.chain.rpcUrl), walletKey: mask(config.chain.walletKey) },
      rhsUrl: maskUrl(config.rhsUrl),
      issuer: { ...config.issuer, blsSeedPhrase: mask(config.issuer.blsSeedPhrase), publicUrl: maskUrl(config.issuer.publicUrl) },
      server: { ...config.server, apiToken: mask(config.server.apiToken) },
    };
  },
});

export const demo = defineOperation({
  name: 'demo.run',
  summary: 'both flows end to end, for real, on the configured chain (the embedded default when nothing is configured)',
  input: z.strictObject({
    flow: z.enum(['pbq', 'sd', 'both']).default('both').describe('which flow to run'),
    revealKeys: z.array(z.string().min(1)).min(1).default(['id', 'name', 'nationality']).describe('passport fields the holder reveals (selective disclosure)'),
    query: z
      .object({ field: z.string().min(1), op: z.enum(QUERY_OPERATORS), value: z.union([z.number(), z.string(), z.array(z.union([z.number(), z.string()]))]) })
      .default({ field: 'birthDate', op: '$lt', value: 20010101 })
      .describe('the query the holder proves (proof by query)'),
  }),
  mutates: true,
  run: async (ctx, input) => {
    const { runDemo } = await import('../demoWalkthrough.js');
    return runDemo(ctx, input);
  },
  failure: (result) => (result.ok ? undefined : 'the demo did not complete: see its steps'),
});
