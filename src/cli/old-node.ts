// Loaded by bin.ts on a Node without node:sqlite: imports nothing of projdex and uses only what Node 18 has.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The command that runs projdex on a newer Node from where this copy was started: a clone (its npm
 * scripts use the pinned Node 24), a tarball or the registry through npx (npx records the spec the user
 * typed in the package.json of its cache folder), or an install.
 */
export function newerNodeCommand(binUrl: string): string {
  // .../projdex (bin is dist/bin.js or src/bin.ts)
  const packageDir = dirname(dirname(fileURLToPath(binUrl)));
  if (existsSync(join(packageDir, 'src', 'bin.ts')) && existsSync(join(packageDir, 'package-lock.json'))) {
    return '`npm ci && npm start` in the clone (its scripts run the pinned Node 24)';
  }
  const spec = npxSpec(packageDir);
  return `\`npx -p node@24 -p ${spec ?? 'projdex'} projdex\``
    + `${spec === undefined || spec === 'projdex' ? '' : ' (from the folder you ran it in)'}`;
}

/**
 * The spec (`./projdex-0.1.0.tgz`, `projdex@latest`, ...) npx was given, when this copy is in npx's
 * cache.
 */
function npxSpec(packageDir: string): string | undefined {
  const cache = dirname(dirname(packageDir)); // <cache>/_npx/<hash>/node_modules/projdex
  if (!packageDir.includes(`${join('_npx', '')}`)) return undefined;
  try {
    const record = JSON.parse(readFileSync(join(cache, 'package.json'), 'utf8')) as {
      _npx?: { packages?: unknown };
    };
    const listed = record._npx?.packages;
    const packages = Array.isArray(listed) ? listed.filter((p): p is string => typeof p === 'string') : [];
    const ours = packages.filter((p) => !/^node(@|$)/.test(p));
    return ours.length === 1 && !/\s/.test(ours[0]!) ? ours[0] : undefined;
  } catch {
    return undefined;
  }
}

/** The sentence the bin prints when this Node cannot run projdex. */
export function oldNodeMessage(binUrl: string, version: string): string {
  return `projdex needs Node.js 22.13 or newer (for node:sqlite) and this is Node.js ${version}; `
    + `run it with a newer Node in one step: ${newerNodeCommand(binUrl)}\n`;
}
