/**
 * Server entry points, read statically: the file a script runs (`node backend/server`, `nodemon src/app.ts`,
 * `tsx watch src/index.ts`, `python app.py`) and a package's `main`, for the port its server binds:
 * `app.listen(5000)`, `listen(process.env.PORT || 5000)`, `listen(PORT)` with `const PORT = ...` in the same
 * file, `app.set('port', ...)`, `serve({ fetch, port: 8787 })`, `Bun.serve({ port })`; in Python
 * `app.run(port=5001)` (Flask's 5000 when a Flask app runs without one), `uvicorn.run(app, port=...)`
 * (8000), `web.run_app(app, port=...)` (8080). Nothing is executed; a `listen` whose port cannot be read
 * statically is a note.
 */
import type { ScanContext } from '../rules/types.ts';
import { joinPath } from '../rules/paths.ts';
import { isRecord, type Finder, type PortRow } from './common.ts';
import { portsInCommand } from './command.ts';
import { defaultRow } from './defaults.ts';
import { defaultPort, expressionPort } from './js-config.ts';
import { createLiteralReader } from '../readers/js/literal.ts';

/** A file some command line or `main` runs, with what to attribute its port to. */
export interface EntryRef {
  /** Path as written (`backend/server`, `./dist/index.js`), relative to `dir`. */
  readonly path: string;
  readonly dir: string;
  readonly script: string | null;
  /** Named by a compose or Dockerfile line: a shell script's tool defaults are not counted (as for the line). */
  readonly explicitOnly?: boolean;
  /** Run inside a container (a Dockerfile CMD, a compose command): its ports are `container` rows. */
  readonly container?: boolean;
  /**
   * A module of a distributable Python package, found by its name only: read only when it starts a program
   * (`__main__.py`, or an `if __name__ == "__main__":` block), never for a library's own `app.run` code.
   */
  readonly startsOnly?: boolean;
}

const ENTRIES = 'ports:entries';

/** How many entry references one scan follows, and how much of an entry file is searched. */
export const MAX_ENTRIES = 200;
const MAX_TEXT = 256 * 1024;
const ENTRY_FILE = /\.(?:[cm]?[jt]sx?|py|sh)$/;
const EXTENSIONS = ['', '.js', '.ts', '.mjs', '.cjs', '.mts', '.cts', '/index.js', '/index.ts', '.py'];

/** What a finder found: its rows, and the entry files its lines run (read once all finders are done). */
export interface Found {
  readonly rows: PortRow[];
  readonly entries: readonly EntryRef[];
}

/**
 * `find` on a view of `ctx` whose noted entry files are its own, returned with its rows: a finder is a unit
 * (index.ts), so what it hands on must be in its value, which a rescan may give back without running it.
 */
export async function withEntries(ctx: ScanContext, find: Finder): Promise<Found> {
  const entries: EntryRef[] = [];
  const own: ScanContext = Object.create(ctx);
  own.shared = <T>(slot: string, make: () => T): T =>
    (slot === ENTRIES ? entries as T : ctx.shared(slot, make));
  return { rows: await find(own), entries };
}

/** Records an entry file a finder saw (in `withEntries`); read when all finders are done (entryPorts). */
export function noteEntry(ctx: ScanContext, ref: EntryRef): void {
  const list = ctx.shared(ENTRIES, (): EntryRef[] => []);
  if (list.length < MAX_ENTRIES) list.push(ref);
}

/** Rows of the entry files `refs` name: one per (file, script) whose port could be read. */
export async function entryPorts(ctx: ScanContext, refs: readonly EntryRef[]): Promise<PortRow[]> {
  const resolved = await Promise.all(refs.map(async (ref) => ({ ref, file: await resolveEntry(ctx, ref) })));
  // A `main` no script runs is read as is; one a script runs is attributed to that script only.
  const byScript = new Set(resolved.filter((r) => r.ref.script !== null).map((r) => r.file));
  const seen = new Set<string>();
  const rows = await Promise.all(resolved.map(async ({ ref, file }): Promise<PortRow[]> => {
    // Read once per script and side: run on the host and in a container, a file gives both rows (listen wins).
    const key = `${file}\0${ref.script}\0${ref.container === true}`;
    if (file === undefined || seen.has(key) || (ref.script === null && byScript.has(file))) return [];
    seen.add(key);
    const text = await ctx.read(file);
    if (text === undefined) return [];
    if (file.endsWith('.sh')) return shellScriptRows(text.slice(0, MAX_TEXT), ref, file);
    const starts = (): boolean => file.endsWith('__main__.py') || MAIN_GUARD.test(stripPythonStrings(text.slice(0, MAX_TEXT)));
    if (ref.startsOnly && !starts()) return [];
    const found = file.endsWith('.py') ? pythonPorts(text.slice(0, MAX_TEXT)) : jsPorts(text.slice(0, MAX_TEXT));
    if (found.unread) ctx.note(`${file} starts a server whose port could not be read statically (${found.unread})`);
    const kind = ref.container ? { kind: 'container' as const } : {};
    return found.ports.map((port) => ({ port, script_name: ref.script, config_source: file, dir: ref.dir, ...kind }));
  }));
  return rows.flat();
}

/**
 * A shell script a line runs (`ENTRYPOINT ["./boot.sh"]`, `sh scripts/start.sh`): each of its command lines
 * read with the same rules as a script (`exec gunicorn -b :5000 app:app`). Files it runs in turn are not followed.
 */
function shellScriptRows(text: string, { script, dir, explicitOnly, container }: EntryRef, file: string): PortRow[] {
  const rows: PortRow[] = [];
  const kind = container ? { kind: 'container' as const } : {};
  for (const raw of text.replace(/\\\r?\n/g, ' ').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const found = portsInCommand(line);
    for (const port of found.ports) rows.push({ port, script_name: script, config_source: file, dir, ...kind });
    for (const port of found.connect) rows.push({ port, script_name: script, config_source: file, dir, kind: 'connect' });
    if (!explicitOnly) for (const d of found.defaults) rows.push(defaultRow(d, script, dir));
  }
  return rows;
}

async function resolveEntry(ctx: ScanContext, ref: EntryRef): Promise<string | undefined> {
  if (ref.path.startsWith('/') || ref.path.includes('$')) return undefined;
  const base = joinPath(ref.dir, ref.path);
  // An Nx project: its build target's `main`, a path from the workspace root.
  if (base.endsWith('project.json')) {
    const json = ctx.has(base) ? await ctx.readJson(base) : undefined;
    const main = isRecord(json) && isRecord(json.targets) && isRecord(json.targets.build) && isRecord(json.targets.build.options)
      ? json.targets.build.options.main : undefined;
    return typeof main === 'string' && !main.endsWith('project.json') ? resolveEntry(ctx, { ...ref, path: main }) : undefined;
  }
  for (const ext of EXTENSIONS) if (ctx.has(base + ext) && isEntryFile(base + ext)) return base + ext;
  return undefined;
}

/** A JS/TS, Python or shell file, or an extensionless script such as express-generator's `bin/www` (read as JS). */
function isEntryFile(file: string): boolean {
  return ENTRY_FILE.test(file) || !file.slice(file.lastIndexOf('/') + 1).includes('.');
}

/** What an entry file says: its ports, and the source of a listen call that could not be read. */
export interface EntryFound { readonly ports: number[]; readonly unread?: string }

const LISTEN = /\.listen\(/g;
const SERVE_OPTIONS = /\b(?:Bun\.serve|serve)\(\s*\{/g;
const SET_PORT = /\.set\(\s*['"]port['"]\s*,/;

/**
 * The arguments of the call whose `(` ends at `from`, split at top-level commas (strings and nesting
 * respected), reading at most 400 characters.
 */
export function callArgs(text: string, from: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let quote = '';
  let start = from;
  const end = Math.min(text.length, from + 400);
  for (let i = from; i < end; i++) {
    const c = text[i]!;
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'" || c === '`') {
      quote = c;
    } else if (c === '(' || c === '[' || c === '{') {
      depth++;
    } else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) return [...args, text.slice(start, i).trim()].filter((a) => a !== '');
      depth--;
    } else if (c === ',' && depth === 0) {
      args.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  return args;
}

/** Ports of a JS/TS server entry. */
export function jsPorts(source: string): EntryFound {
  const text = source.replace(/\/\*[^]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const ports: number[] = [];
  let unread: string | undefined;
  let reader: ReturnType<typeof createLiteralReader> | undefined;
  const read = (expr: string, depth = 0): number | undefined => {
    if (/\bget\(\s*['"]port['"]\s*\)/.test(expr)) {
      const set = SET_PORT.exec(text);
      return set && depth === 0 ? read(callArgs(text, set.index + set[0].length)[0] ?? '', 1) : undefined;
    }
    if (/^\d+$/.test(expr)) return defaultPort(expr);
    reader ??= createLiteralReader(text);
    return expressionPort(expr, reader);
  };
  const exprs: string[] = [];
  for (const m of text.matchAll(LISTEN)) exprs.push(callArgs(text, m.index + m[0].length)[0] ?? '');
  for (const m of text.matchAll(SERVE_OPTIONS)) {
    const port = /(?:^|[{,\s])port\s*(?::\s*([^,}\n]+))?(?=[,}\n])/.exec(callArgs(text, m.index + m[0].length - 1)[0] ?? '');
    // `{ fetch, port }` shorthand names a variable of the same name.
    if (port) exprs.push((port[1] ?? 'port').trim());
  }
  for (const expr of exprs) {
    // A path or a socket, or a bare callback: not a port.
    if (expr === '' || /^(?:\(|async\b|function\b|['"`])/.test(expr)) continue;
    const port = read(expr);
    if (port !== undefined) ports.push(port);
    else unread ??= expr.slice(0, 60);
  }
  return { ports, ...(ports.length === 0 && unread !== undefined ? { unread } : {}) };
}

const MAIN_GUARD = /^if\s+__name__\s*==\s*['"]__main__['"]\s*:/m;

/**
 * Python source without its triple-quoted strings (docstrings): a library's docstring shows
 * `app = Flask(__name__)` and `app.run()` as examples, which are not its own server.
 */
function stripPythonStrings(source: string): string {
  return source.replace(/(?:"""[^]*?"""|'''[^]*?''')/g, '""');
}

const PY_CALL = /\b(uvicorn\.run|web\.run_app|socketio\.run|[A-Za-z_]\w*\.run)\(/g;

/** Ports of a Python entry (`python app.py`). */
export function pythonPorts(source: string): EntryFound {
  const text = stripPythonStrings(source).replace(/#.*$/gm, '');
  // `app = Flask(__name__)`: the names whose `.run()` starts Flask's server (5000 unless told).
  const flaskApps = new Set([...text.matchAll(/^\s*([A-Za-z_]\w*)\s*=\s*(?:flask\.)?Flask\(/gm)].map((m) => m[1]!));
  const ports: number[] = [];
  for (const m of text.matchAll(PY_CALL)) {
    const callee = m[1]!;
    const object = callee.slice(0, callee.indexOf('.'));
    const fallback = callee === 'uvicorn.run' ? 8000 : callee === 'web.run_app' ? 8080
      : callee === 'socketio.run' || flaskApps.has(object) ? 5000 : undefined;
    if (fallback === undefined) continue;
    const kw = callArgs(text, m.index + m[0].length).map((a) => /^port\s*=\s*([^]+)$/.exec(a)?.[1]).find((v) => v !== undefined);
    if (kw === undefined) {
      ports.push(fallback);
      continue;
    }
    const value = kw.trim();
    const assigned = /^[A-Za-z_]\w*$/.test(value) ? new RegExp(`^\\s*${value}\\s*=\\s*(.+)$`, 'm').exec(text)?.[1] : value;
    const port = assigned === undefined ? undefined : defaultPort(assigned);
    if (port !== undefined) ports.push(port);
  }
  return { ports };
}
