/**
 * The embedded reverse hash service (RHS API of iden3), served by the issuer role and backed by
 * the wallet store (see src/iden3/rhs.ts): credentials issued without RHS_URL name it.
 * issuer POST /node         [{hash, children}] -> {status: "OK", saved}   (nodes are hash-checked)
 * issuer GET  /node/:hash   -> {node: {hash, children}, status: "OK"}  or 404
 */
import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../route.js';
import { rhsNodesSchema } from '../../core/pbq/schemas.js';

/** RHS routes (issuer role). */
export const rhsRoutes: RouteDefinition[] = [
  defineRoute({
    role: 'issuer',
    method: 'POST',
    path: '/node',
    summary: 'reverse hash service: store tree nodes (each hash must equal the Poseidon hash of its children)',
    body: rhsNodesSchema,
    response: z.object({ status: z.literal('OK'), saved: z.number() }),
    mutating: true,
    handler: async (ctx, { body }) => {
      const { saveRhsNodes } = await import('../../core/pbq/rhs.js');
      return { body: await saveRhsNodes(ctx, body) };
    },
  }),
  defineRoute({
    role: 'issuer',
    method: 'GET',
    path: '/node/:hash',
    summary: 'reverse hash service: the children of a node hash',
    response: z.object({ node: z.object({ hash: z.string(), children: z.array(z.string()) }), status: z.literal('OK') }),
    handler: async (ctx, { params }) => {
      const { readRhsNode } = await import('../../core/pbq/rhs.js');
      return { body: await readRhsNode(ctx, params.hash ?? '') };
    },
  }),
];
