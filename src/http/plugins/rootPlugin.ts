/**
 * The plugins of `vc serve` shape the whole server (its hooks, parsers, error and not-found
 * handlers), not an encapsulated child of it: what fastify-plugin does, with the two symbols
 * fastify reads, so no dependency is added for it.
 */
import type { FastifyPluginAsync } from 'fastify';

/** Marks `plugin` as applying to the instance that registers it, under `name` (fastify's messages). */
export function rootPlugin<Options extends Record<string, unknown>>(name: string, plugin: FastifyPluginAsync<Options>): FastifyPluginAsync<Options> {
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: name });
}
