import { describe, expect, it } from 'vitest';
import { withoutPaths } from '../../src/core/health.js';

describe('withoutPaths: what /healthz may say of a problem', () => {
  it('hides a configured path whole, spaces and all, and any other absolute path', () => {
    const configured = '/tmp/rv secret dir/user-alice';
    const said = withoutPaths(`CIRCUITS_PATH=${configured}: not a directory; see /var/lib/vc/anvil.log`, [configured]);
    expect(said).toBe('CIRCUITS_PATH=(path): not a directory; see (path)');
    expect(said).not.toMatch(/secret|alice|anvil/);
  });

  it('hides the longer of two nested configured paths first, and shows URLs by their origin', () => {
    expect(withoutPaths('/home/a b/vc and /home/a b', ['/home/a b', '/home/a b/vc'])).toBe('(path) and (path)');
    expect(withoutPaths('cannot reach https://rpc.example/v3/KEY123', [])).toBe('cannot reach https://rpc.example/…');
  });
});
