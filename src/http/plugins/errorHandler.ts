/**
 * Every error a request meets becomes our JSON error: vc's own errors with their status, code and
 * field (named as the route names it); fastify's parsing and limit errors with ours; a lost
 * connection inside a library call a 502; anything else a logged 500 that says no more.
 */
import type { FastifyError, FastifyRequest, FastifyServerOptions } from 'fastify';
import { OverloadedError, asConnectionFailure, describeError, isVcError, redactUrls } from '../../errors.js';
import { fieldRendererOf, sendError } from '../errorReplies.js';
import { REQUEST_ID_HEADER } from '../requestId.js';
import { rootPlugin } from './rootPlugin.js';

export interface ErrorHandlerOptions extends Record<string, unknown> {
  /** VC_BODY_LIMIT, named in the 413 message. */
  bodyLimit: number;
  /** Receives unexpected (500) errors with their stack. */
  logError?: ((message: string) => void) | undefined;
}

/** Maps fastify's routing errors (raised before any hook runs) to a status and code. */
function frameworkErrorStatus(error: FastifyError): { status: number; code: string; message: string } {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return { status: 400, code: 'invalid_url', message: 'the request URL is malformed (invalid percent-encoding or form)' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, code: 'uri_too_long', message: 'a path parameter exceeds 100 characters' };
    default: {
      const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      return status === 500 ? { status, code: 'internal_error', message: 'internal error' } : { status, code: 'bad_request', message: describeError(error) };
    }
  }
}

/**
 * The server option for fastify's routing errors (a bad percent-encoding, an over-long path
 * parameter). They are raised before any hook runs: the id header and the access log line, which
 * hooks give every other answer, are given here.
 */
export function frameworkErrorOptions(logError: ErrorHandlerOptions['logError'], logAnswer?: (request: FastifyRequest, status: number) => void): Pick<FastifyServerOptions, 'frameworkErrors'> {
  return {
    frameworkErrors: (error, request, reply) => {
      const { status, code, message } = frameworkErrorStatus(error);
      reply.header(REQUEST_ID_HEADER, request.id);
      if (status === 500) logError?.(error.stack ?? error.message);
      void sendError(reply, status, code, message);
      logAnswer?.(request, status);
    },
  };
}

/** Maps fastify's own errors (parsing, limits) to our JSON error bodies. */
function fastifyErrorStatus(error: { code?: string; statusCode?: number }): { status: number; code: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'payload_too_large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'unsupported_media_type' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'invalid_json' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'invalid_request' };
    default:
      if (error.statusCode === 400) return { status: 400, code: 'invalid_json' };
      return undefined;
  }
}

export const errorHandler = rootPlugin<ErrorHandlerOptions>('vc-error-handler', async (app, { bodyLimit, logError }) => {
  app.setErrorHandler((raised, request, reply) => {
    // The connection closed before the body arrived (the client left, or the request timeout or
    // a parse error closed it): nobody reads an answer, and it is no upstream failure to log.
    if (request.raw.destroyed && !request.raw.complete) return sendError(reply, 400, 'bad_request', 'the connection closed before the request body arrived');
    // A lost connection inside a library call (the chain node died) is a 502, not a bug.
    const error = asConnectionFailure(raised) ?? raised;
    if (isVcError(error)) {
      const field = fieldRendererOf(request)(error.field);
      // A full worker queue: nothing was done, the same request succeeds later. Not a fault to
      // log (under overload that would be one line per refused request), and its message names
      // no path or secret.
      if (error instanceof OverloadedError) {
        reply.header('Retry-After', String(error.retryAfterSeconds));
        return sendError(reply, error.httpStatus, error.code, error.message, field);
      }
      if (error.httpStatus >= 500) {
        logError?.(`${error.name}: ${error.message}`);
        // Server-side faults (configuration, store) can name paths and variables: the operator
        // reads them in the log, the client gets the code only. Upstream (chain) errors stay.
        if (error.httpStatus !== 502) return sendError(reply, error.httpStatus, error.code, `${error.code.replace(/_/g, ' ')} on the server (see its log)`, field);
      }
      // Upstream errors name the URL that failed: its origin only, never a key in its path.
      return sendError(reply, error.httpStatus, error.code, error.httpStatus === 502 ? redactUrls(error.message) : error.message, field);
    }
    const known = fastifyErrorStatus(error as { code?: string; statusCode?: number });
    if (known !== undefined) {
      const code = (error as { code?: string }).code;
      const message =
        known.status === 413
          ? `request body exceeds the limit of ${bodyLimit} bytes`
          : code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
            ? 'request body is empty: expected a JSON object'
            : describeError(error);
      return sendError(reply, known.status, known.code, message);
    }
    logError?.(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return sendError(reply, 500, 'internal_error', 'internal error');
  });
});
