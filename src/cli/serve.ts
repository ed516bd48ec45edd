/**
 * `vc serve`: runs the HTTP services until SIGINT/SIGTERM, then shuts down gracefully
 * (stop accepting, finish in-flight requests, release the context). Its log is JSON Lines on
 * stderr: the request lines, and every message of its own (start, warnings, shutdown, what the
 * operations report while they run) as `{"time", "level", "message"}`.
 */
import { Option, type Command } from 'commander';
import { ROLES, type Role } from '../http/route.js';
import { logLine, loggingProgress, type LogLevel } from '../http/serviceLog.js';
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
    .option('--port <n>', 'port of a single role (default: PORT, else issuer 3000, verifier 4000, holder 5000); with --role all only 0 (a free port for each role) is accepted and PORT is not used', portOption('--port'))
    .option('--host <host>', 'address to listen on (default 127.0.0.1 or VC_HOST)')
    .addHelpText(
      'after',
      `
Examples:
  $ vc serve --role all                      # issuer :3000, verifier :4000, holder :5000
  $ vc serve --role holder --port 5050
  $ VC_API_TOKEN=$(openssl rand -hex 16) vc serve --role verifier
  $ curl -s localhost:4000/                  # the role, its routes and where its OpenAPI document is
  $ curl -s localhost:4000/openapi.json      # the routes of a role and their schemas

Logs: JSON Lines on stderr, one per request (id, route, status, duration; the id is the
X-Request-Id of the answer) and one per message of the server; never bodies or keys.`,
    )
    .action(async (options: ServeOptions) => {
      const { startServer } = await import('../http/server.js');
      const log = (level: LogLevel, message: string): void => rt.output.log(logLine(level, message));
      const ctx = await rt.ctx();
      // What the operations say while they run (the chain node restarting...) becomes log lines
      // too: this process serves, nobody watches a terminal's spinners. The context is this
      // command's own, made for it by the runtime.
      Object.assign(ctx.progress, loggingProgress((line) => rt.output.log(line)));
      const roles = options.role === 'all' ? [...ROLES] : [options.role];
      if (roles.length > 1 && options.port !== undefined && options.port !== 0) {
        const { InputError } = await import('../errors.js');
        throw new InputError('--port applies to a single --role; with --role all each service uses its default port, issuer 3000, verifier 4000, holder 5000 (or --port 0 for free ports): to choose ports, serve each role with its own vc serve --role R --port N', { field: 'port' });
      }
      const server = await startServer(ctx, {
        roles,
        port: options.port,
        host: options.host,
        log: (line) => rt.output.log(line),
        logError: (message) => log('error', message),
        logWarning: (message) => log('warn', message),
      });
      rt.output.result({ listening: server.urls, ...(server.rhs === undefined ? {} : { rhsUrl: server.rhs.url }) });
      for (const [role, url] of Object.entries(server.urls)) log('info', `the ${role} service listens at ${url}: GET / lists its routes, GET /openapi.json describes them`);
      log('info', server.workers === 0 ? 'BBS+ runs on the main thread (VC_WORKERS=0)' : `BBS+ runs on ${server.workers} worker thread${server.workers === 1 ? '' : 's'} (VC_WORKERS)`);
      if (server.rhs?.reachable === true) log('info', `issued credentials name the reverse hash service at ${server.rhs.url}/node`);
      if (server.statusLists?.reachable === false) {
        log('warn', `the issuer listens on every interface, and its new status lists are named under ${server.statusLists.url}/status-lists, which only this machine reaches: set VC_ISSUER_URL to the address verifiers reach it at`);
      }
      if (server.rhs?.reachable === false) {
        log('warn', `the issuer listens on every interface, and its credentials name the reverse hash service at ${server.rhs.url}/node, which only this machine reaches: set RHS_URL to the address other parties reach it at`);
      }
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals): void => {
          log('info', `${signal}: finishing in-flight requests and shutting down`);
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void server
            .close()
            .then(async () => {
              const { stopLocalNodeIfStartedHere } = await import('../core/chainAccess.js');
              if (await stopLocalNodeIfStartedHere(ctx)) log('info', 'stopped the local chain node this server had started');
            })
            .then(
              () => {
                log('info', 'shut down');
                resolve();
              },
              (error: unknown) => {
                log('error', `shutdown: ${error instanceof Error ? error.message : String(error)}`);
                resolve();
              },
            );
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
