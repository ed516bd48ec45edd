/**
 * The JSON error answer of `vc serve`, `{"error": {"code", "message", "field"?}}`, for every
 * plugin and route that refuses a request.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

/** The error body of a code and message (and the input field it is about). */
export function errorBody(code: string, message: string, field?: string): ErrorBody {
  return { error: { code, message, ...(field !== undefined ? { field } : {}) } };
}

/** Sends `status` with the JSON error body. */
export function sendError(reply: FastifyReply, status: number, code: string, message: string, field?: string): FastifyReply {
  return reply.code(status).type('application/json').send(errorBody(code, message, field));
}

/** An error's field as the request's route names it (a body path, a query or path parameter). */
export type FieldRenderer = (field: string | undefined) => string | undefined;

/** Lets the error handler name an error's field as the route that runs `request` does. */
export function setFieldRenderer(request: FastifyRequest, render: FieldRenderer): void {
  (request as FastifyRequest & { renderField?: FieldRenderer }).renderField = render;
}

/** The field renderer the route set, else one that keeps the operation's name. */
export function fieldRendererOf(request: FastifyRequest): FieldRenderer {
  return (request as FastifyRequest & { renderField?: FieldRenderer }).renderField ?? ((name) => name);
}
