import type { ScanContext } from '../rules/types.ts';
import { dirname } from '../rules/paths.ts';
import { addressPort, pick, toPort, type PortRow } from './common.ts';
import { callArgs, noteEntry } from './entry.ts';
import { isLocalAddress, namesClient } from './kind.ts';

/**
 * Listen ports written in a program's own source, for programs no command line names: Go `main` packages
 * (`main.go`, `cmd/<name>/*.go`), Rust binaries (`src/main.rs`, `src/bin/*.rs`), and Python entry files
 * (`app.py`, `main.py`, `server.py`, ... run as `python app.py`: handed to entry.ts, which reads
 * `app.run()` and `uvicorn.run(port=int(os.getenv("PORT", "8000")))`). Only listen calls and settings named
 * as the program's own address count: a client's address (`redis.NewClient(&Options{Addr: ...})`,
 * `TcpStream::connect`, a flag named `db-port`) is never read. Example and test folders are left out. A module
 * of a distributable Python package (flask's own `src/flask/app.py`) counts only when it starts a program.
 */

const MAX_FILES = 300;
const MAX_TEXT = 256 * 1024;
const SKIPPED = /(?:^|\/)(?:examples?|_examples|testdata|tests?|vendor|third_party|fixtures|benches)\//;
const PY_ENTRIES = new Set(['app.py', 'main.py', 'server.py', 'run.py', '__main__.py', 'asgi.py', 'wsgi.py']);

export async function findSourcePorts(ctx: ScanContext): Promise<PortRow[]> {
  // Go: every file of a directory holding a main package (main.go, cmd/<name>/, a module root), read only
  // when it says `package main`. Rust: every file under the src/ of a crate with a binary (src/main.rs, src/bin/).
  const goDirs = new Set(pick(ctx, (b) => b === 'main.go' || b === 'go.mod').map(dirname));
  const go = pick(ctx, (b) => b.endsWith('.go') && !b.endsWith('_test.go'),
    (p) => !SKIPPED.test(p) && (goDirs.has(dirname(p)) || /(?:^|\/)cmd\/[^/]+\/[^/]+$/.test(p)));
  const binaries = pick(ctx, (b) => b.endsWith('.rs'), (p) => !SKIPPED.test(p) && RUST_BINARY.test(p));
  const crates = binaries.map((p) => p.slice(0, p.lastIndexOf('src/')));
  const rust = crates.length === 0 ? [] : pick(ctx, (b) => b.endsWith('.rs'),
    (p) => !SKIPPED.test(p) && crates.some((root) => p.startsWith(`${root}src/`)));
  const python = pick(ctx, (b) => PY_ENTRIES.has(b), (p) => !SKIPPED.test(p) && p.split('/').length <= 4);
  for (const file of python.slice(0, MAX_FILES)) {
    const dir = dirname(file);
    const ref = { path: file.slice(file.lastIndexOf('/') + 1), dir, script: null };
    noteEntry(ctx, isLibraryModule(ctx, dir) ? { ...ref, startsOnly: true } : ref);
  }
  const files = [...go, ...new Set(rust)];
  if (files.length > MAX_FILES) {
    ctx.note(`${files.length} Go and Rust program files; only the first ${MAX_FILES} were read for listen ports`);
  }
  const texts = await Promise.all(files.slice(0, MAX_FILES).map(async (file) => ({
    file, text: (await ctx.read(file))?.slice(0, MAX_TEXT),
  })));
  // Rust: `const DEFAULT_PORT: u16 = 6379;` anywhere in the crates read, for `unwrap_or(DEFAULT_PORT)` beside a bind.
  const constants = new Map<string, number>();
  for (const { file, text } of texts) {
    if (!file.endsWith('.rs') || text === undefined || !text.includes('const')) continue;
    for (const m of text.matchAll(/\bconst\s+(\w{0,40}PORT\w{0,40})\s*:\s*u16\s*=\s*(\d{1,5})\s*;/g)) {
      const port = toPort(m[2]);
      if (port !== undefined && !namesClient(m[1]!)) constants.set(m[1]!, port);
    }
  }
  return texts.flatMap(({ file, text }) => {
    if (text === undefined || (file.endsWith('.go') && !/^package main\b/m.test(text))) return [];
    const ports = file.endsWith('.go') ? goPorts(text) : rustPorts(text, constants);
    const dir = dirname(file);
    return [...new Set(ports)].map((port): PortRow => ({ port, script_name: null, config_source: file, dir }));
  });
}

/**
 * Whether `dir` is a package of a distributable Python project: it holds `__init__.py` and a folder above it
 * (or itself) holds `pyproject.toml`, `setup.py` or `setup.cfg`. Flask's `src/flask/app.py` is such a
 * module (its docstrings show `app.run()`), as is an app shipped as a package (mealie's `mealie/main.py`,
 * which starts uvicorn under `if __name__ == "__main__":`); a root `app.py` beside `requirements.txt` is not.
 */
function isLibraryModule(ctx: ScanContext, dir: string): boolean {
  if (!ctx.has(dir === '' ? '__init__.py' : `${dir}/__init__.py`)) return false;
  for (let at: string | undefined = dir; at !== undefined; at = at === '' ? undefined : dirname(at)) {
    const prefix = at === '' ? '' : `${at}/`;
    if (['pyproject.toml', 'setup.py', 'setup.cfg'].some((name) => ctx.has(prefix + name))) return true;
  }
  return false;
}

/** Strips block comments (in one pass: an unclosed one ends the text) and `//` line comments (not `http://`). */
function stripComments(text: string): string {
  const kept: string[] = [];
  let at = 0;
  for (let open = text.indexOf('/*'); open !== -1; open = text.indexOf('/*', at)) {
    kept.push(text.slice(at, open));
    const close = text.indexOf('*/', open + 2);
    at = close === -1 ? text.length : close + 2;
  }
  kept.push(text.slice(at));
  return kept.join(' ').replace(/(^|[\s;{}(),])\/\/.*$/gm, '$1');
}

/** A port from a listen-address literal: `:8080`, `0.0.0.0:3000`, `localhost:80`; not a remote host's. */
function listenAddress(literal: string): number | undefined {
  if (toPort(literal) !== undefined) return undefined;
  return isLocalAddress(literal) ? addressPort(literal) : undefined;
}

/** Whether a setting named `name` with `value` is the program's own listen address or port. */
function ownSetting(name: string, value: string): number | undefined {
  if (namesClient(name) || !/port|addr|listen|bind|host/i.test(name)) return undefined;
  if (toPort(value) !== undefined) return /port/i.test(name) ? toPort(value) : undefined;
  return listenAddress(value);
}

/** The text of a Go string literal (`"..."` or a raw `` `...` ``), or undefined. */
const unquote = (arg: string | undefined): string | undefined =>
  /^"([^"\n]*)"$|^`([^`\n]*)`$/.exec(arg?.trim() ?? '')?.slice(1).find((v) => v !== undefined);
const GO_FLAG = /\b(?:flag|pflag|fs|flags|Flags\(\)|PersistentFlags\(\))\.(?:Int|Uint|Int64|String)(Var)?(P)?\(/g;
const GO_ENV_HELPER = /\b(?:cmp\.Or\(\s*os\.Getenv|\w{0,40}?[Ee]nv\w{0,40}?)\(\s*"(\w+)"\s*\)?\s*,\s*("[^"\n]*"|\d+)\s*\)/g;
const RUST_BINARY = /(?:^|\/)src\/(?:main\.rs|bin\/[^/]+\.rs)$/;

/**
 * Go: `http.ListenAndServe(":8080", ...)`, gin's `r.Run(":8080")`, echo's `e.Start(":1323")`, fiber's
 * `app.Listen(":3000")`, `net.Listen("tcp", ":9000")`, `&http.Server{Addr: ":8080"}`; flags
 * (`flag.Int("port", 8080, ...)`, `flag.StringVar(&addr, "addr", ":8080", ...)`, pflag's `P` forms);
 * `port := os.Getenv("PORT")` followed by `if port == "" { port = "8080" }`, `cmp.Or(os.Getenv("PORT"), "8080")`,
 * helpers `getEnv("PORT", "8080")`; struct tags `conf:"default:0.0.0.0:3000"` / `envDefault:"8080"`.
 */
export function goPorts(source: string): number[] {
  const text = stripComments(source);
  const out: number[] = [];
  const push = (port: number | undefined): void => { if (port !== undefined) out.push(port); };
  for (const m of text.matchAll(/\b(?:ListenAndServe(?:TLS)?|\.Run|\.Start|\.Listen|RunTLS|StartTLS)\(\s*("[^"\n]*")/g)) {
    push(listenAddress(unquote(m[1]) ?? ''));
  }
  // gin's `r.Run()` with no address listens on $PORT, else 8080.
  if (text.includes('github.com/gin-gonic/gin') && /\.Run\(\s*\)/.test(text)) out.push(8080);
  for (const m of text.matchAll(/\bnet\.Listen\(\s*"(?:tcp[46]?|udp)"\s*,\s*("[^"\n]*")/g)) {
    push(listenAddress(unquote(m[1]) ?? ''));
  }
  for (const m of text.matchAll(/\bhttp\.Server\s*\{[^}]{0,300}?\bAddr:\s*("[^"\n]*")/g)) push(listenAddress(unquote(m[1]) ?? ''));
  for (const m of text.matchAll(GO_FLAG)) {
    const args = callArgs(text, m.index + m[0].length);
    const at = (m[1] ? 1 : 0);
    const name = unquote(args[at]);
    const value = args[at + (m[2] ? 2 : 1)]?.trim();
    if (name !== undefined && value !== undefined) push(ownSetting(name, unquote(value) ?? value));
  }
  for (const m of text.matchAll(/\b(\w+)\s*:?=\s*os\.Getenv\(\s*"(\w+)"\s*\)/g)) {
    const rest = text.slice(m.index + m[0].length, m.index + m[0].length + 300);
    const fallback = new RegExp(`^\\s*if\\s+${m[1]}\\s*==\\s*""\\s*\\{\\s*${m[1]}\\s*=\\s*"([^"\\n]*)"`).exec(rest);
    if (fallback) push(ownSetting(m[2]!, fallback[1]!));
  }
  // Words are bounded (`\b` and `{0,40}`): a long identifier is not backtracked through.
  // `srvPort := port` then `if os.Getenv("PORT") != "" { srvPort = os.Getenv("PORT") }`, with `port = "8080"` a constant.
  for (const m of text.matchAll(/\bif\s+os\.Getenv\(\s*"(\w+)"\s*\)\s*!=\s*""\s*\{\s*(\w+)\s*=\s*os\.Getenv\(/g)) {
    const before = text.slice(Math.max(0, m.index - 400), m.index);
    const init = [...before.matchAll(new RegExp(`\\b${m[2]}\\s*:?=\\s*("[^"\\n]*"|\\w+)`, 'g'))].at(-1)?.[1];
    const constant = (name: string): string | undefined => new RegExp(`\\b${name}\\s*=\\s*"([^"\\n]*)"`).exec(text)?.[1];
    const value = init === undefined ? undefined : unquote(init) ?? constant(init);
    if (value !== undefined) push(ownSetting(m[1]!, value));
  }
  for (const m of text.matchAll(GO_ENV_HELPER)) {
    push(ownSetting(m[1]!, unquote(m[2]) ?? m[2]!));
  }
  for (const m of text.matchAll(/^[ \t]*(\w+)[ \t]+[\w.*[\]]+[ \t]+`([^`\n]*)`/gm)) {
    const tag = m[2]!;
    const value = /\bconf:"(?:[^"]*,)?default:([^,"]+)/.exec(tag)?.[1]
      ?? /\b(?:envDefault|default):"([^"]+)"/.exec(tag)?.[1];
    if (value === undefined) continue;
    const env = /\benv:"(\w+)/.exec(tag)?.[1];
    push(ownSetting(`${structAbove(text, m.index)}_${env ?? m[1]!}`, value));
  }
  return out;
}

/** The name of the struct a field line sits in (`Web struct {` -> `Web`), for the setting's full name. */
function structAbove(text: string, at: number): string {
  const before = text.slice(Math.max(0, at - 600), at);
  const all = [...before.matchAll(/(\w+)\s+struct\s*\{/g)];
  return all.length === 0 ? '' : all[all.length - 1]![1]!;
}

/**
 * Rust: `TcpListener::bind("0.0.0.0:3000")`, actix's `.bind(("127.0.0.1", 8080))`,
 * `SocketAddr::from(([0, 0, 0, 0], 3000))`, `SocketAddr::new(..., 8080)`, `"0.0.0.0:3000".parse()`,
 * `env::var("PORT").unwrap_or_else(|_| "8080".to_string())`, clap's `default_value_t = 8080` on a `port`
 * field, and `unwrap_or(DEFAULT_PORT)` in a file that binds, with `const DEFAULT_PORT: u16 = 6379` in
 * `constants` (from every file of the crates read). A connect call (`TcpStream::connect`) is never read.
 */
export function rustPorts(source: string, constants: ReadonlyMap<string, number> = new Map()): number[] {
  const text = stripComments(source);
  const out: number[] = [];
  const push = (port: number | undefined): void => { if (port !== undefined) out.push(port); };
  // mini-redis: `let port = cli.port.unwrap_or(DEFAULT_PORT);` then `TcpListener::bind(&format!("127.0.0.1:{port}"))`.
  if (/\bbind\(/.test(text)) {
    for (const m of text.matchAll(/\bunwrap_or\(\s*(?:\w{1,40}::){0,4}(\w{1,80})\s*\)/g)) push(constants.get(m[1]!));
  }
  for (const m of text.matchAll(/\bbind\(\s*&?"([^"\n]*)"/g)) push(listenAddress(m[1]!));
  for (const m of text.matchAll(/\bbind\(\s*\(\s*"([^"\n]*)"\s*,\s*(\d{1,5})\s*\)/g)) {
    if (isLocalAddress(`${m[1]}:0`)) push(toPort(m[2]));
  }
  for (const m of text.matchAll(/\bSocketAddr(?:V4|V6)?::from\(\(\s*\[[^\]]{0,60}\]\s*,\s*(\d{1,5})\s*\)\)/g)) {
    push(toPort(m[1]));
  }
  for (const m of text.matchAll(/\bSocketAddr(?:V4|V6)?::new\(/g)) {
    push(toPort(callArgs(text, m.index + m[0].length).at(-1)));
  }
  for (const m of text.matchAll(/"([^"\n]*:\d{1,5})"\s*\.parse\b/g)) push(listenAddress(m[1]!));
  for (const m of text.matchAll(/\benv::var\(\s*"(\w+)"\s*\)[^;]{0,80}?\bunwrap_or(?:_else)?\([^;"]{0,20}"([^"\n]*)"/g)) {
    push(ownSetting(m[1]!, m[2]!));
  }
  for (const m of text.matchAll(/default_value(?:_t)?\s*=\s*"?([^",)\]\s]+)"?[^\]]{0,80}\)\]\s*(?:pub\s+)?(\w+)\s*:/g)) {
    push(ownSetting(m[2]!, m[1]!));
  }
  return out;
}
