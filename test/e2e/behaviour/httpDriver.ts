/**
 * The HTTP Driver: a real server (the one `vc serve --role all` runs) on ephemeral loopback ports,
 * each call sent to the route of the operation in the route table (src/http/routes.ts). Non-2xx
 * answers become DriverCallErrors from the JSON error body.
 */
import { parseConfig, type RawVariables } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { pathParameters, type Role } from '../../../src/http/route.js';
import { ROUTES } from '../../../src/http/routes.js';
import { startServer, type ErrorBody, type RunningServer } from '../../../src/http/server.js';
import { DriverCallError, driverOver, type Driver } from './driver.js';
import { stopEmbeddedChain } from './inProcessDriver.js';

export interface HttpDriver extends Driver {
  /** Base URL of each role. */
  readonly urls: Record<Role, string>;
}

/** Starts a server with every role on free ports, for a wallet at `home`, and returns its driver. */
export async function createHttpDriver(vars: RawVariables, home: string): Promise<HttpDriver> {
  const ctx = new Context({ config: parseConfig(vars, home) });
  let server: RunningServer;
  try {
    server = await startServer(ctx, { roles: ['issuer', 'holder', 'verifier'], port: 0, host: '127.0.0.1' });
  } catch (error) {
    await ctx.close();
    throw error;
  }
  const urls = server.urls as Record<Role, string>;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (ctx.config.server.apiToken !== undefined) headers.authorization = `Bearer ${ctx.config.server.apiToken}`;

  async function call(name: string, input: Record<string, unknown>): Promise<unknown> {
    // The route whose path parameters the input gives (GET /credentials/:id), else one without any.
    const candidates = ROUTES.filter((candidate) => candidate.operation.name === name);
    const route =
      candidates.find((candidate) => pathParameters(candidate).length > 0 && pathParameters(candidate).every((param) => typeof input[param] === 'string')) ??
      candidates.find((candidate) => pathParameters(candidate).length === 0);
    if (route === undefined) throw new Error(`no route serves operation ${name}`);
    const where = `${route.role} ${route.method} ${route.path}`;
    const params = pathParameters(route);
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_match, param: string) => encodeURIComponent(String(input[param])));
    const url = new URL(`${urls[route.role]}${path}`);
    // Only a POST has a body (and says it is JSON).
    let init: RequestInit = { method: route.method, headers: route.method === 'POST' ? headers : Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'content-type')) };
    const rest = Object.fromEntries(Object.entries(input).filter(([key]) => !params.includes(key)));
    if (route.method !== 'POST') for (const [key, value] of Object.entries(rest)) url.searchParams.set(key, String(value));
    else init = { ...init, body: JSON.stringify(route.bodyField === undefined ? input : input[route.bodyField]) };
    const response = await fetch(url, init);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${where}: ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    if (response.status >= 200 && response.status < 300) {
      const expected = typeof route.status === 'number' ? route.status : 200;
      if (response.status !== expected) throw new Error(`${where}: expected status ${expected}, got ${response.status}`);
      if (!/^application\/json/.test(response.headers.get('content-type') ?? '')) throw new Error(`${where}: not served as application/json`);
      return parsed;
    }
    const error = (parsed as Partial<ErrorBody>).error;
    if (error === undefined || typeof error.code !== 'string' || typeof error.message !== 'string') {
      throw new Error(`${where}: ${response.status} without an {error: {code, message}} body: ${text.slice(0, 200)}`);
    }
    throw new DriverCallError(error.message, response.status, error.code, error.field, undefined);
  }

  const driver = driverOver('http', call, async () => {
    await server.close();
    await stopEmbeddedChain(ctx);
    await ctx.close();
  });
  return { ...driver, urls };
}
