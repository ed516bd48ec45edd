/**
 * The OpenAPI document of every role, with and without a token, passes Redocly's `recommended`
 * rules (@redocly/openapi-core, the library behind `redocly lint`): no error and no warning.
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { ROLES } from '../../src/http/route.js';
import { ROUTES } from '../../src/http/routes.js';

describe('the OpenAPI documents under Redocly recommended rules', () => {
  for (const role of ROLES) {
    for (const options of [
      { authRequired: false, serverUrl: 'http://127.0.0.1:4000' },
      { authRequired: true, serverUrl: undefined },
    ]) {
      it(`${role} (token: ${options.authRequired})`, async () => {
        const doc = buildOpenApiDocument(role, ROUTES.filter((route) => route.role === role), options);
        const config = await createConfig({ extends: ['recommended'] });
        const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: `/openapi-${role}.json`, config });
        const report = problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location.map((at) => at.pointer).join(', ')}`);
        expect(report).toEqual([]);
      });
    }
  }
});
