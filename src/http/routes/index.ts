/**
 * Every route of `vc serve`; each flow contributes its own list.
 */
import type { RouteDefinition } from '../route.js';
import { systemRoutes } from './system.js';
import { sdRoutes } from './sd.js';
import { pbqRoutes } from './pbq.js';

/** All route definitions, for every role. */
export function allRoutes(): RouteDefinition[] {
  return [...systemRoutes, ...pbqRoutes, ...sdRoutes];
}
