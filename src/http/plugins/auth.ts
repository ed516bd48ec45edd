/**
 * Bearer authentication (VC_API_TOKEN): every route but the open ones of OPEN_PATH_PATTERNS
 * (/healthz, which load balancers probe, and what holders and verifiers read of a credential's
 * status: GET /status-lists/:id, GET /node/:hash, POST /agent) needs `Authorization: Bearer <token>`; otherwise 401 with `WWW-Authenticate: Bearer`
 * and our JSON error. @fastify/bearer-auth reads the header; the comparison is ours, in constant
 * time whatever the presented token's length.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import fastifyBearerAuth from '@fastify/bearer-auth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../errorReplies.js';
import { isOpenPath } from '../route.js';
import { rootPlugin } from './rootPlugin.js';

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time comparison of a presented bearer token against the configured one. */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(sha256(presented), sha256(expected));
}


export const auth = rootPlugin<{ token: string | undefined }>('vc-auth', async (app, { token }) => {
  if (token === undefined) return;
  // As a function the route hook below calls (addHook: false), so that /healthz stays open and a
  // refusal is answered in our shape: the plugin's own hook answers every path, in its own.
  // rfc6749: the scheme name is case-insensitive (RFC 7235 2.1), so `bearer <token>` is accepted too.
  await app.register(fastifyBearerAuth, { keys: [], auth: (presented: string) => tokenMatches(presented, token), addHook: false, specCompliance: 'rfc6749' });
  const verify = app.verifyBearerAuth!;
  const authorised = (request: FastifyRequest, reply: FastifyReply): Promise<boolean> =>
    new Promise((resolve) => {
      verify(request, reply, (error) => resolve(error === undefined));
    });
  app.addHook('onRequest', async (request, reply) => {
    if (isOpenPath(request.url.split('?')[0] ?? '')) return undefined;
    if (await authorised(request, reply)) return undefined;
    reply.header('WWW-Authenticate', 'Bearer');
    return sendError(reply, 401, 'unauthorized', 'missing or invalid bearer token');
  });
});
