/**
 * The reverse hash service a served issuer's credentials name is where that issuer listens: a
 * holder elsewhere can reach it (issue 14). `vc serve` says which URL on start.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runVc, startVcServe, tempDir, templateHome } from '../helpers.js';

const tmp = tempDir('vc-served-rhs-');
const issuerHome = templateHome(path.join(tmp.dir, 'issuer'));
const holderHome = templateHome(path.join(tmp.dir, 'holder'));

afterAll(() => {
  runVc(['--json', 'chain', 'down'], { home: issuerHome });
  tmp.cleanup();
});

describe('an issuer served on a port of its own', () => {
  it('issues credentials naming its own address as their reverse hash service, which serves the status', async () => {
    const server = await startVcServe(issuerHome, ['--role', 'issuer']);
    try {
      const issuerUrl = server.urls.issuer!;
      expect(issuerUrl).not.toBe('http://127.0.0.1:3000');
      // Said on start (stderr follows the listening line on stdout).
      for (let waited = 0; waited < 5_000 && !server.stderr().includes('reverse hash service'); waited += 100) await new Promise((r) => setTimeout(r, 100));
      expect(server.stderr()).toContain(`issued credentials name the reverse hash service at ${issuerUrl}/node`);
      const holder = runVc(['--json', 'holder', 'did', 'create'], { home: holderHome });
      expect(holder.status, holder.stderr).toBe(0);
      const response = await fetch(`${issuerUrl}/generate-pbq-credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ did: holder.json<{ did_String: string }>().did_String }),
      });
      expect(response.status).toBe(200);
      const { credential } = (await response.json()) as { credential: { credentialStatus: { id: string; revocationNonce: number } } };
      expect(credential.credentialStatus.id.startsWith(issuerUrl)).toBe(true);
      // The service named there answers the RHS API: the issuer's state root is a node it serves.
      const status = new URL(credential.credentialStatus.id);
      const state = status.searchParams.get('state');
      expect(state).toMatch(/^[0-9a-f]{64}$/);
      const node = await fetch(`${status.origin}${status.pathname}/${state}`);
      expect(node.status).toBe(200);
      expect(((await node.json()) as { node: { children: string[] } }).node.children).toHaveLength(3);
    } finally {
      await server.stop();
    }
  }, 900_000);
});
