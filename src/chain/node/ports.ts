/** TCP addresses of the embedded node: free ports on the loopback, and where to reach a listener. */
import { createServer } from 'node:net';
import { NetworkError } from '../../errors.js';

export const LOOPBACK = '127.0.0.1';

/** Listens on `host`:`port` for a moment: the port it got (0 picks one), or undefined when it is taken. */
export function tryListen(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, host, () => {
      const address = server.address();
      const chosen = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => resolve(chosen));
    });
  });
}

/** Finds a free TCP port on the loopback interface. */
export function findFreePort(preferred?: number): Promise<number> {
  return (async () => {
    if (preferred !== undefined && preferred > 0) {
      const port = await tryListen(preferred, LOOPBACK);
      if (port !== undefined) return port;
    }
    const port = await tryListen(0, LOOPBACK);
    if (port === undefined) throw new NetworkError('cannot find a free TCP port on 127.0.0.1 for the local chain');
    return port;
  })();
}

/** Where this machine reaches a node listening on `host` (a wildcard address: the loopback). */
export function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return LOOPBACK;
  return host.includes(':') ? `[${host}]` : host;
}
