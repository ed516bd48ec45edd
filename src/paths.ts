/**
 * Where `vc` is installed: the one lookup of the package root (holding package.json, fixtures/
 * and circuits/), valid from the TypeScript sources (src/, tests) and from the build (dist/src/).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './errors.js';

function isVcManifest(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'vc';
  } catch {
    return false;
  }
}

/** The package root: the nearest ancestor of this module whose package.json is vc's. */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (isVcManifest(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new ConfigError(`cannot locate the vc installation directory (vc's package.json above ${fileURLToPath(import.meta.url)})`);
    dir = parent;
  }
}
