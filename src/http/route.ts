/**
 * A route of `vc serve`: a thin adapter from an HTTP request to a core operation. Each flow
 * declares its routes in src/http/routes/*.ts; the server mounts those of the served roles,
 * validates bodies with the route's schema and renders errors uniformly.
 */
import type { z } from 'zod';
import type { Context } from '../context.js';

export type Role = 'issuer' | 'holder' | 'verifier';
export const ROLES: readonly Role[] = ['issuer', 'holder', 'verifier'];
/** Default port of each role (PORT overrides when a single role is served). */
export const DEFAULT_PORTS: Record<Role, number> = { issuer: 3000, verifier: 4000, holder: 5000 };

export interface RouteRequest<B> {
  body: B;
  params: Record<string, string>;
  query: Record<string, string>;
}

export interface RouteResponse {
  status?: number;
  body: unknown;
}

export interface RouteDefinition<S extends z.ZodType = z.ZodType> {
  role: Role;
  method: 'GET' | 'POST' | 'DELETE';
  /** Fastify path syntax, e.g. /node/:hash */
  path: string;
  summary: string;
  /** Request body schema (POST); the body is validated before the handler runs. */
  body?: S;
  /** Response schema, for the OpenAPI document. */
  response?: z.ZodType;
  /** Mutating routes sign transactions or change the wallet; they are serialised per process. */
  mutating?: boolean;
  handler: (ctx: Context, request: RouteRequest<z.output<S>>) => Promise<RouteResponse>;
}

/** Declares a route with its body type inferred from the schema. */
export function defineRoute<S extends z.ZodType>(route: RouteDefinition<S>): RouteDefinition<S> {
  return route;
}
