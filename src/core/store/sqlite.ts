import type * as Sqlite from 'node:sqlite';

/** The Node.js version that first ships `node:sqlite` without a flag. */
export const REQUIRED_NODE = '22.13';

/**
 * Loads `node:sqlite` lazily, so that merely importing projdex on an older Node does not fail with a
 * module-resolution stack trace; opening a store there throws one clear sentence instead.
 */
export function loadSqlite(): typeof Sqlite {
  const mod = process.getBuiltinModule?.('node:sqlite') as typeof Sqlite | undefined;
  if (!mod) {
    throw new Error(`projdex needs Node.js ${REQUIRED_NODE} or newer (for node:sqlite); this is Node.js ${process.versions.node}.`);
  }
  return mod;
}
