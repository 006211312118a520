import type { ScanContext } from '../rules/types.ts';
import { addressPort, isVariable, rowsOfFiles, shDefaults, toPort, type PortRow } from './common.ts';
import { basename, dirname } from '../rules/paths.ts';
import { envKinds } from './kind.ts';

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/;
// Files named like `.env.ts` or `.env.json` are code or data, not dotenv files.
const NOT_DOTENV = /\.(?:[cm]?[jt]s|json|ya?ml|toml|md)$/;
// scheme://[user[:pass]@]host:port[/...]: the port of a connection URL.
const URL_PORT = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@/\s]*@)?(?:\[[^\]]*\]|[^:/?#\s]*):(\d{1,5})(?:[/?#,]|$)/;

/** True for `.env`, `.env.local`, `.env.development`, `.env.production.local`, `.flaskenv`, ... */
export function isDotenv(base: string): boolean {
  // `.flaskenv` is the dotenv file `flask run` reads (FLASK_RUN_PORT).
  return base === '.env' || base === '.flaskenv' || (base.startsWith('.env.') && !NOT_DOTENV.test(base));
}

/**
 * Ports in dotenv files anywhere in the tree: `PORT=`, `*_PORT=` and the port of URL values
 * (`DATABASE_URL=postgres://u:p@localhost:5432/db`). `${PORT:-3000}` yields its default. Each row's kind
 * comes from the variable's name (kind.ts): `PORT` listens, `REDIS_PORT` and `DATABASE_URL` connect. A
 * `.flaskenv` naming FLASK_APP stands for `flask run`: Flask's 5000, unless FLASK_RUN_PORT is set.
 */
export async function findDotenvPorts(ctx: ScanContext): Promise<PortRow[]> {
  return rowsOfFiles(ctx, isDotenv, (text, file) => {
    const dir = dirname(file);
    const pairs = parseDotenv(text);
    const kinds = envKinds(pairs);
    // `.flaskenv` is read only by the flask command: a project that keeps one starts with `flask run`, on 5000
    // unless FLASK_RUN_PORT says otherwise (which drops this row, as it drops a script's `flask run` default).
    const flaskRun: PortRow[] = basename(file) === '.flaskenv' && pairs.some(([name]) => name === 'FLASK_APP')
      ? [{ port: 5000, script_name: null, config_source: file, dir, key: 'flask:5000' }] : [];
    return flaskRun.concat(pairs.flatMap(([name, value], k): PortRow[] => {
      const port = valuePort(name, value);
      if (port === undefined) return [];
      // Create React App reads PORT from its .env: the dev server listens there, not on 3000.
      // Flask's `flask run` reads FLASK_RUN_PORT (from .flaskenv or .env) instead of its 5000.
      const suppress = name === 'PORT' && basename(file) !== '.env.production' ? ['react-scripts:3000']
        : name === 'FLASK_RUN_PORT' ? ['flask:5000'] : undefined;
      return [{ port, script_name: null, config_source: file, dir, kind: kinds[k]!, ...(suppress ? { suppress } : {}) }];
    }));
  });
}

/** `[name, value]` pairs of a dotenv file, quotes removed, comments skipped. */
export function parseDotenv(text: string): Array<[name: string, value: string]> {
  const out: Array<[string, string]> = [];
  for (const raw of text.split('\n')) {
    const m = LINE.exec(raw);
    if (!m) continue;
    let value = m[2]!.trim();
    const q = value[0];
    if ((q === '"' || q === "'" || q === '`') && value.indexOf(q, 1) !== -1) value = value.slice(1, value.indexOf(q, 1));
    else value = value.replace(/\s+#.*$/, '');
    out.push([m[1]!, value]);
  }
  return out;
}

/** The port a dotenv entry names, if any. */
export function valuePort(name: string, value: string): number | undefined {
  const upper = name.toUpperCase();
  if (upper === 'PORT' || upper.endsWith('_PORT')) return toPort(shDefaults(value));
  if (isVariable(value) && !value.includes('${')) return undefined;
  const url = URL_PORT.exec(shDefaults(value));
  return url ? toPort(url[1]) : upper.endsWith('_ADDR') || upper.endsWith('_HOST') ? hostPort(value) : undefined;
}

function hostPort(value: string): number | undefined {
  return /^[A-Za-z0-9.-]+:\d{1,5}$/.test(value) ? addressPort(value) : undefined;
}
