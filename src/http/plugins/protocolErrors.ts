/**
 * Errors of HTTP itself, found below the routes, answered in our JSON shape: what Node's parser
 * rejects and its request timeout (a raw response, then the connection closes: the rest of its
 * bytes cannot be trusted), an unknown Expect, CONNECT, and a missing Host.
 */
import { STATUS_CODES, maxHeaderSize, type ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyServerOptions } from 'fastify';
import { errorBody, sendError } from '../errorReplies.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../requestId.js';
import { rootPlugin } from './rootPlugin.js';

/**
 * How often Node looks for requests past their timeout: its default (30 s) would let a slow body
 * live up to 30 s past VC_BODY_TIMEOUT.
 */
const CONNECTIONS_CHECK_INTERVAL_MS = 1000;

/**
 * Answers an error found below fastify (the HTTP parser, Node's request timeout, CONNECT) with a
 * raw response in our JSON shape, then closes the connection: the rest of its bytes cannot be
 * trusted. Nothing is written once a response has started on the socket, as Node itself does.
 */
function writeRawError(socket: Duplex, status: number, code: string, message: string): void {
  const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true;
  if (socket.destroyed || !socket.writable || started) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(code, message));
  // The request could not be read: its X-Request-Id, if any, is not trusted; a new id is given.
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestIdOf(undefined)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // Once flushed, drop whatever the client still sends; a client that never reads is dropped anyway.
  const timer = setTimeout(() => socket.destroy(), 1000);
  timer.unref();
  socket.once('finish', () => {
    clearTimeout(timer);
    socket.destroy();
  });
}

/** Maps an error of Node's HTTP layer (llhttp's HPE_* codes, timeouts) to a status and code. */
function clientErrorStatus(error: NodeJS.ErrnoException, timeoutSeconds: number): { status: number; code: string; message: string } {
  switch (error.code) {
    // Node counts the request line in the header size: a long URL lands here too (llhttp has no URI-too-long error).
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'header_too_large', message: `the request line and headers exceed ${maxHeaderSize} bytes` };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'payload_too_large', message: 'chunk extensions too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: `the request (headers and body) did not arrive within ${timeoutSeconds} s` };
    default:
      return { status: 400, code: 'bad_request', message: `malformed HTTP request${error.code !== undefined ? ` (${error.code})` : ''}` };
  }
}

/**
 * The server options of this plugin: the whole request (headers and body) must arrive within
 * VC_BODY_TIMEOUT, or a client trickling a body holds a connection forever (fastify's default is
 * no limit), and the parser's errors are answered by clientErrorHandler.
 */
export function protocolServerOptions(timeoutSeconds: number): Pick<FastifyServerOptions, 'requestTimeout' | 'clientErrorHandler'> & { http: ServerOptions } {
  const timeoutMs = timeoutSeconds * 1000;
  return {
    requestTimeout: timeoutMs,
    // Node checks only every connectionsCheckingInterval. Set through `http` (the options of
    // http.createServer) rather than a serverFactory, which would turn off fastify's
    // keepAliveTimeout and its second binding of `localhost` (IPv4 and IPv6).
    http: {
      requestTimeout: timeoutMs,
      headersTimeout: timeoutMs,
      connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
      // Node answers a missing Host with a bare 400; the onRequest hook below answers it in JSON.
      requireHostHeader: false,
    },
    clientErrorHandler: (error, socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) {
        socket.destroy();
        return;
      }
      const { status, code, message } = clientErrorStatus(error, timeoutSeconds);
      writeRawError(socket, status, code, message);
    },
  };
}

export const protocolErrors = rootPlugin('vc-protocol-errors', async (app) => {
  // Node answers these without a request reaching fastify: an unknown Expect (bare 417) and
  // CONNECT (connection dropped).
  app.server.on('checkExpectation', (request, response) => {
    const body = JSON.stringify(errorBody('expectation_failed', 'only "Expect: 100-continue" is supported'));
    response.writeHead(417, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), [REQUEST_ID_HEADER]: requestIdOf(request), connection: 'close' }).end(body);
  });
  app.server.on('connect', (_request, socket: Duplex) => {
    writeRawError(socket, 405, 'method_not_allowed', 'CONNECT is not allowed');
  });
  app.addHook('onRequest', async (request, reply) => {
    // HTTP/1.1 requires Host (RFC 9112 3.2); Node's own check (requireHostHeader) has no JSON body.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      reply.header('connection', 'close');
      return sendError(reply, 400, 'bad_request', 'missing Host header');
    }
    return undefined;
  });
});
