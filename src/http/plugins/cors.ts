/**
 * CORS for browser clients of one origin (VC_CORS_ORIGIN), through @fastify/cors: every answer
 * past the shutdown and Host checks names the origin (and `Vary: Origin`), and any OPTIONS
 * request is answered 204 with the methods and headers allowed, before the bearer token is
 * checked (browsers send preflights without it).
 */
import fastifyCors from '@fastify/cors';
import { rootPlugin } from './rootPlugin.js';

export const cors = rootPlugin<{ origin: string | undefined }>('vc-cors', async (app, { origin }) => {
  if (origin === undefined) return;
  await app.register(fastifyCors, {
    // A function, not the string itself: @fastify/cors adds `Vary: Origin` only for a computed origin.
    origin: (_requestOrigin, callback) => callback(null, origin),
    methods: 'GET, POST, DELETE, OPTIONS',
    allowedHeaders: 'Content-Type, Authorization, X-Request-Id, Idempotency-Key',
    // Any OPTIONS is a preflight, with or without Origin and Access-Control-Request-Method.
    strictPreflight: false,
    // Scripts may read the id of an answer (to quote it when reporting a problem), and whether an
    // answer was given again for its Idempotency-Key.
    exposedHeaders: 'X-Request-Id, Idempotent-Replayed',
  });
  // @fastify/cors gives its 204 a `Content-Length: 0`, which RFC 9110 (8.6) forbids on a 204 and
  // which vc's preflight answers never carried.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode === 204) reply.removeHeader('content-length');
    return payload;
  });
});
