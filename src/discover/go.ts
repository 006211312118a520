import type { FoundTest, ScanContext } from '../rules/types.ts';
import { withCases } from '../rules/with-cases.ts';
import { nearest, type FileIndex } from './files.ts';
import { basename, dirname } from '../rules/paths.ts';
import { MAX_DEPTH, noteLimit } from '../readers/budget.ts';

// Filename constraints `_GOOS`, `_GOARCH`, `_GOOS_GOARCH` before `_test.go`; the host is taken as linux/amd64.
const GOOS = ['aix', 'android', 'darwin', 'dragonfly', 'freebsd', 'hurd', 'illumos', 'ios', 'js', 'linux', 'nacl', 'netbsd', 'openbsd', 'plan9', 'solaris', 'wasip1', 'windows', 'zos'];
const GOARCH = ['386', 'amd64', 'amd64p32', 'arm', 'armbe', 'arm64', 'arm64be', 'loong64', 'mips', 'mipsle', 'mips64', 'mips64le', 'mips64p32', 'mips64p32le', 'ppc', 'ppc64', 'ppc64le', 'riscv', 'riscv64', 's390', 's390x', 'sparc', 'sparc64', 'wasm'];
const HOST_TAGS = new Set(['linux', 'amd64', 'unix', 'gc', 'cgo']);

/**
 * `*_test.go` files `go test ./...` would compile in each module (every `go.mod`, nested modules as their
 * own). Skipped like the go tool does: files and directories starting with `.` or `_`, `testdata` and
 * `vendor` directories, modules nested inside such directories, files whose name or `//go:build` line
 * excludes linux/amd64 (other tags, e.g. `integration`, count as unset). Cases: `func TestXxx(` at top level.
 */
export async function discoverGo(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const picked = goCandidates(index).filter((c) => c.nameFits).map((c) => c.file);
  return withCases(ctx, picked, 'go', countGo, { keep: 'fits' });
}

/**
 * The `_test.go` files `go test ./...` would consider (module and path rules above), each with its module
 * and whether its name fits the host; a file that fits may still be left out by its `//go:build` line.
 */
function goCandidates(index: FileIndex): Array<{ file: string; mod: string; nameFits: boolean }> {
  const mods = index.byName.get('go.mod') ?? [];
  if (mods.length === 0) return [];
  const modDirs = new Set(mods.map(dirname));
  // A module whose directory the enclosing module would skip (testdata/, vendor/, _x/, .x/) is a fixture.
  const valid = new Map<string, boolean>();
  const moduleOk = (dir: string): boolean => {
    let ok = valid.get(dir);
    if (ok !== undefined) return ok;
    const parent = dir === '' ? undefined : nearest(modDirs, dir);
    ok = parent === undefined || (moduleOk(parent) && cleanPath(parent, dir));
    valid.set(dir, ok);
    return ok;
  };
  const out: Array<{ file: string; mod: string; nameFits: boolean }> = [];
  for (const file of index.byExt.get('go') ?? []) {
    const name = basename(file);
    if (!name.endsWith('_test.go') || name.startsWith('.') || name.startsWith('_')) continue;
    const mod = nearest(modDirs, file);
    if (mod === undefined || !moduleOk(mod) || !cleanPath(mod, dirname(file))) continue;
    out.push({ file, mod, nameFits: nameFitsHost(name) });
  }
  return out;
}

/**
 * Says, per Go module, how many of its `_test.go` files a build constraint (file name or `//go:build`)
 * leaves out, so a module whose tests all need another platform or a tag (`integration`) does not read as
 * a module without tests. Made from the Go rule's rows after its unit ran or was replayed (not inside it):
 * a file recounted into or out of the list moves the note with it.
 */
export function noteGoLeftOut(ctx: ScanContext, index: FileIndex, rows: readonly FoundTest[]): void {
  const candidates = goCandidates(index);
  if (candidates.length === 0) return;
  const listed = new Set(rows.filter((t) => t.framework === 'go').map((t) => t.file));
  const perModule = new Map<string, { total: number; left: number }>();
  for (const { file, mod } of candidates) {
    const counts = perModule.get(mod) ?? { total: 0, left: 0 };
    counts.total++;
    if (!listed.has(file)) counts.left++;
    perModule.set(mod, counts);
  }
  for (const [mod, { total, left }] of perModule) {
    if (left === 0) continue;
    const where = `Go module \`${mod === '' ? '.' : mod}\``;
    ctx.note(left === total
      ? `${where}: none of its ${total} \`_test.go\` files builds for linux/amd64 without build tags (file name or \`//go:build\` line), so none is listed`
      : `${where}: ${left} of ${total} \`_test.go\` files build only for other platforms or with build tags (file name or \`//go:build\` line; taken as linux/amd64, no tags): not listed`);
  }
}

// Module-level: a unit record keeps its counting calls (unit-memo.ts), so it must not hold the scan.
const countGo = (text: string): number => (buildFitsHost(text) ? (text.match(/^func Test(?:[^a-z]\w*)?\(/gm) ?? []).length : -1);

function cleanPath(from: string, dir: string): boolean {
  const rel = from === '' ? dir : dir.slice(from.length + 1);
  if (rel === '') return true;
  return rel.split('/').every((seg) => seg !== 'testdata' && seg !== 'vendor' && !seg.startsWith('.') && !seg.startsWith('_'));
}

function nameFitsHost(name: string): boolean {
  const parts = name.slice(0, -'_test.go'.length).split('_');
  const last = parts[parts.length - 1]!;
  const prev = parts.length > 2 ? parts[parts.length - 2]! : undefined;
  if (parts.length > 1 && GOARCH.includes(last)) {
    if (last !== 'amd64') return false;
    return !(prev !== undefined && GOOS.includes(prev) && prev !== 'linux');
  }
  if (parts.length > 1 && GOOS.includes(last)) return last === 'linux';
  return true;
}

/** Evaluates the `//go:build` expression (before the package clause) for linux/amd64 without extra tags. */
export function buildFitsHost(text: string): boolean {
  const head = text.slice(0, Math.max(0, text.search(/^package\s/m)));
  const line = /^\/\/go:build\s+(.+)$/m.exec(head)?.[1];
  if (!line) return true;
  const tokens = line.match(/!|&&|\|\||\(|\)|[\w.]+/g) ?? [];
  let i = 0;
  let depth = 0;
  const atom = (): boolean => {
    const t = tokens[i++];
    // Real constraints nest two or three levels; past the cap the rest is not read, and the file is kept.
    if ((t === '!' || t === '(') && ++depth > MAX_DEPTH) throw new RangeError('deep');
    if (t === '!') return !atom();
    if (t === '(') { const v = or(); i++; return v; }
    return t !== undefined && (HOST_TAGS.has(t) || /^go1\.\d+$/.test(t));
  };
  const and = (): boolean => { let v = atom(); while (tokens[i] === '&&') { i++; v = atom() && v; } return v; };
  const or = (): boolean => { let v = and(); while (tokens[i] === '||') { i++; v = and() || v; } return v; };
  try {
    return or();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    noteLimit(`a //go:build line nests deeper than ${MAX_DEPTH} levels; its file was taken as built`);
    return true;
  }
}
