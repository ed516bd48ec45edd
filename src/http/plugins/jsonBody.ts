/**
 * Bodies are JSON only, read by the strict parser of CLI input files: a duplicated key, nesting
 * deeper than MAX_JSON_DEPTH or an unsafe integer is a 400 naming its path (an InvalidJsonError),
 * like a syntax error. `application/json; charset=utf-8` and other parameters match it too, and so
 * does `application/iden3comm-plain-json` (a plain iden3comm message, which is JSON: what Privado ID
 * wallets send to an issuer's agent).
 */
import { errorCodes, type FastifyRequest } from 'fastify';
import { parseJsonText } from '../../jsonInput.js';
import { rootPlugin } from './rootPlugin.js';

export const jsonBody = rootPlugin<{ bodyLimit: number }>('vc-json-body', async (app, { bodyLimit }) => {
  // fastify's default text/plain parser would turn a text body into a string that then fails the
  // schema with a 400 instead of the 415 it deserves.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  // A route whose body is text (a JWZ token a wallet posts) takes text/plain and application/iden3-zkp-json only.
  const takesText = (request: FastifyRequest): boolean => (request.routeOptions.config as { textBody?: boolean } | undefined)?.textBody === true;
  // A route may take either (the issuer's agent: a plain JSON message, or a JWZ token).
  const alsoText = (request: FastifyRequest): boolean => (request.routeOptions.config as { textAlso?: boolean } | undefined)?.textAlso === true;
  app.addContentTypeParser(['text/plain', 'application/iden3-zkp-json'], { parseAs: 'string', bodyLimit }, (request, body, done) => {
    if (!takesText(request) && !alsoText(request)) {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type']), undefined);
      return;
    }
    done(null, body);
  });
  app.addContentTypeParser(['application/json', 'application/iden3comm-plain-json'], { parseAs: 'string', bodyLimit }, (request, body, done) => {
    if (takesText(request)) {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type']), undefined);
      return;
    }
    // A DELETE takes no body (its input is the path): clients that send it a JSON content type with nothing are fine.
    if (body.length === 0 && request.method === 'DELETE') {
      done(null, undefined);
      return;
    }
    // An empty body with a JSON content type is fastify's own 400 (invalid_json).
    if (body.length === 0) {
      done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
      return;
    }
    let value: unknown;
    try {
      value = parseJsonText(body as string, 'request body');
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    done(null, value);
  });
});
