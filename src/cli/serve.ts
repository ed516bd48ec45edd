/**
 * `vc serve`: runs the HTTP services until SIGINT/SIGTERM, then shuts down gracefully
 * (stop accepting, finish in-flight requests, release the context).
 */
import { Option, type Command } from 'commander';
import { ROLES, type Role } from '../http/route.js';
import { portOption, type CliRuntime } from './runtime.js';

interface ServeOptions {
  role: Role | 'all';
  port?: number;
  host?: string;
}

/** Registers `vc serve`. */
export function registerServeCommand(program: Command, rt: CliRuntime): void {
  program
    .command('serve')
    .description('serve the issuer, holder and verifier routes over HTTP (JSON)')
    .addOption(new Option('--role <role>', 'which service to run').choices([...ROLES, 'all']).default('all'))
    .option('--port <n>', 'port for a single role (default: issuer 3000, verifier 4000, holder 5000, or PORT)', portOption('--port'))
    .option('--host <host>', 'address to listen on (default 127.0.0.1 or VC_HOST)')
    .addHelpText(
      'after',
      `
Examples:
  $ vc serve --role all                      # issuer :3000, verifier :4000, holder :5000
  $ vc serve --role holder --port 5050
  $ VC_API_TOKEN=$(openssl rand -hex 16) vc serve --role verifier
  $ curl -s localhost:4000/openapi.json      # the routes of a role and their schemas

Logs: one JSON line per request on stderr (id, route, status, duration); never bodies or keys.`,
    )
    .action(async (options: ServeOptions) => {
      const { startServer } = await import('../http/server.js');
      const ctx = await rt.ctx();
      const roles = options.role === 'all' ? [...ROLES] : [options.role];
      if (roles.length > 1 && options.port !== undefined && options.port !== 0) {
        const { InputError } = await import('../errors.js');
        throw new InputError('--port applies to a single --role; with --role all each service uses its default port (or --port 0 for free ports)', { field: 'port' });
      }
      const server = await startServer(ctx, {
        roles,
        port: options.port,
        host: options.host,
        log: (line) => rt.output.log(line),
        logError: (message) => rt.output.warn(message),
      });
      rt.output.result({ listening: server.urls, ...(server.rhs === undefined ? {} : { rhsUrl: server.rhs.url }) });
      rt.output.info(server.workers === 0 ? 'BBS+ runs on the main thread (VC_WORKERS=0)' : `BBS+ runs on ${server.workers} worker thread${server.workers === 1 ? '' : 's'} (VC_WORKERS)`);
      if (server.rhs?.reachable === true) rt.output.info(`issued credentials name the reverse hash service at ${server.rhs.url}/node`);
      if (server.rhs?.reachable === false) {
        rt.output.warn(`the issuer listens on every interface, and its credentials name the reverse hash service at ${server.rhs.url}/node, which only this machine reaches: set RHS_URL to the address other parties reach it at`);
      }
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals): void => {
          rt.output.info(`${signal}: finishing in-flight requests and shutting down`);
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void server
            .close()
            .then(async () => {
              const { stopLocalNodeIfStartedHere } = await import('../core/chainAccess.js');
              if (await stopLocalNodeIfStartedHere(ctx)) rt.output.info('stopped the local chain node this server had started');
            })
            .then(resolve, resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
