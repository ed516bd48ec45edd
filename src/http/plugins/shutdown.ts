/**
 * Graceful close: once closing, new requests get a 503 in our JSON shape, and the answers to the
 * requests still in flight close their connection, so clients' keep-alive sockets do not hold
 * the server open until their idle timeout.
 */
import { sendError } from '../errorReplies.js';
import { rootPlugin } from './rootPlugin.js';

/** The server options this plugin relies on. */
export const SHUTDOWN_SERVER_OPTIONS = {
  // While closing, new requests get the 503 of the onRequest hook below (fastify's own 503 has
  // another body).
  return503OnClosing: false,
  // On close, drop idle keep-alive connections at once (in-flight requests still finish);
  // otherwise shutdown waits for the clients' keep-alive timeout.
  forceCloseConnections: 'idle',
} as const;

export const shutdown = rootPlugin('vc-shutdown', async (app) => {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (closing) return sendError(reply, 503, 'service_unavailable', 'the server is shutting down');
    return undefined;
  });
});
