/**
 * Reading configuration: the I/O half. Resolves the home directory (--home > VC_HOME > conf >
 * default), reads the .env file (explicit --env, else ./.env if present) and hands the merged
 * variables to the pure parser. Process environment wins over the .env file.
 */
import { readFileSync, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type Conf from 'conf';
import { parse as parseDotenv } from 'dotenv';
import { ConfigError, describeError } from '../errors.js';
import { parseConfig, type Config, type RawVariables } from './parse.js';

export interface LoadConfigOptions {
  /** --home */
  home?: string | undefined;
  /** --env FILE */
  envFile?: string | undefined;
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Defaults to process.cwd(). */
  cwd?: string;
}

/** Reads a .env file; an explicitly named file must exist. */
export function readEnvFile(file: string, explicit: boolean): RawVariables {
  if (!existsSync(file)) {
    if (explicit) throw new ConfigError(`cannot read env file ${file}: no such file`, { field: 'env' });
    return {};
  }
  try {
    return parseDotenv(readFileSync(file));
  } catch (error) {
    throw new ConfigError(`cannot read env file ${file}: ${(error as Error).message}`, { field: 'env', cause: error });
  }
}

/** The default wallet home: $XDG_DATA_HOME/vc or ~/.local/share/vc. */
export function defaultHome(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(homedir(), '.local', 'share');
  return path.join(base, 'vc');
}

/** What `vc config` remembers between runs. */
export interface VcPreferences {
  home?: string;
}

/**
 * The directory of the preferences file as conf chooses it (env-paths), read from `env` rather
 * than from the process' environment: $XDG_CONFIG_HOME/vc or ~/.config/vc on Linux and the other
 * XDG systems; undefined elsewhere (conf's own choice, which does not depend on XDG variables).
 */
function confDir(env: NodeJS.ProcessEnv): string | undefined {
  if (process.platform === 'darwin' || process.platform === 'win32') return undefined;
  return path.join(env.XDG_CONFIG_HOME || path.join(homedir(), '.config'), 'vc');
}

/**
 * Opens the preferences kept by conf (~/.config/vc/config.json on Linux); conf is loaded only
 * when needed. An unreadable or corrupt file is a ConfigError (exit 3) naming it.
 */
export async function openConf(env: NodeJS.ProcessEnv = process.env): Promise<Conf<VcPreferences>> {
  const { default: ConfStore } = await import('conf');
  const cwd = confDir(env);
  const options = { projectName: 'vc', projectSuffix: '', ...(cwd === undefined ? {} : { cwd }) };
  try {
    return new ConfStore<VcPreferences>(options);
  } catch (error) {
    // conf throws before its path is known to us; a lenient instance (it ignores the bad content
    // and writes nothing) tells where the file is.
    let file = 'of vc';
    try {
      file = new ConfStore<VcPreferences>({ ...options, clearInvalidConfig: true }).path;
    } catch {
      // keep the generic name
    }
    throw new ConfigError(`cannot read the preferences file ${file}: ${describeError(error)}; fix or delete it`, { field: 'conf', cause: error });
  }
}

/** The home chosen by `vc config set-home`, if any. */
async function confHome(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const conf = await openConf(env);
  const home = conf.get('home');
  return typeof home === 'string' && home !== '' ? home : undefined;
}

/** Loads and validates the configuration for one process. */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<Config> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const envFile = options.envFile ?? path.join(cwd, '.env');
  const fromFile = readEnvFile(path.resolve(cwd, envFile), options.envFile !== undefined);
  const vars: RawVariables = { ...fromFile, ...env };

  const homeValue = options.home ?? (vars.VC_HOME?.trim() || undefined) ?? (await confHome(env)) ?? defaultHome(env);
  return parseConfig(vars, path.resolve(cwd, homeValue));
}
