/**
 * The HTTP Driver: a real server (the one `vc serve --role all` runs) on ephemeral loopback ports,
 * called with fetch on the spec routes. Non-2xx answers become DriverCallErrors from the JSON
 * error body.
 */
import { parseConfig, type RawVariables } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import type { Role } from '../../src/http/route.js';
import { startServer, type ErrorBody, type RunningServer } from '../../src/http/server.js';
import { DriverCallError, type Driver } from './driver.js';
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

  async function post<T>(role: Role, path: string, body: unknown, expectedStatus = 200): Promise<T> {
    const response = await fetch(`${urls[role]}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${role} ${path}: ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    if (response.status >= 200 && response.status < 300) {
      if (response.status !== expectedStatus) throw new Error(`${role} ${path}: expected status ${expectedStatus}, got ${response.status}`);
      if (!/^application\/json/.test(response.headers.get('content-type') ?? '')) throw new Error(`${role} ${path}: not served as application/json`);
      return parsed as T;
    }
    const error = (parsed as Partial<ErrorBody>).error;
    if (error === undefined || typeof error.code !== 'string' || typeof error.message !== 'string') {
      throw new Error(`${role} ${path}: ${response.status} without an {error: {code, message}} body: ${text.slice(0, 200)}`);
    }
    throw new DriverCallError(error.message, response.status, error.code, error.field, undefined);
  }

  return {
    kind: 'http',
    urls,
    issueSdCredential: (body) => post('issuer', '/generate-sd-credentials', body),
    storeSdCredential: (body) => post('holder', '/sd-credentials', body),
    discloseSd: (body) => post('holder', '/generate-selective-disclosure-vc', body),
    createNonce: (body = {}) => post('verifier', '/nonce', body),
    verifyVc: (body) => post('verifier', '/verify-vc', body),
    createHolderDid: (body = {}) => post('holder', '/did', body),
    createIssuerDid: () => post('issuer', '/did', {}),
    issuePbqCredential: (body) => post('issuer', '/generate-pbq-credentials', body),
    createCredentialRequest: (body = {}) => post('verifier', '/credential-requests', body, 201),
    proveSubmit: (body) => post('holder', '/generate-submit-proof', body),
    revokePbqCredential: (body) => post('issuer', '/revoke', body),
    close: async () => {
      await server.close();
      await stopEmbeddedChain(ctx);
      await ctx.close();
    },
  };
}
