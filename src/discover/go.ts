import type { FoundTest, ScanContext } from '../rules/types.ts';
import { withCases } from '../rules/with-cases.ts';
import { nearest, type FileIndex } from './files.ts';
import { basename, dirname, joinPath } from '../rules/paths.ts';
import { MAX_DEPTH, noteLimit } from '../readers/budget.ts';
import { goTagRuns, type GoTagRun } from './go-runs.ts';

// Filename constraints `_GOOS`, `_GOARCH`, `_GOOS_GOARCH` before `_test.go`; the host is taken as linux/amd64.
const GOOS = ['aix', 'android', 'darwin', 'dragonfly', 'freebsd', 'hurd', 'illumos', 'ios', 'js', 'linux', 'nacl', 'netbsd', 'openbsd', 'plan9', 'solaris', 'wasip1', 'windows', 'zos'];
const GOARCH = ['386', 'amd64', 'amd64p32', 'arm', 'armbe', 'arm64', 'arm64be', 'loong64', 'mips', 'mipsle', 'mips64', 'mips64le', 'mips64p32', 'mips64p32le', 'ppc', 'ppc64', 'ppc64le', 'riscv', 'riscv64', 's390', 's390x', 'sparc', 'sparc64', 'wasm'];
const HOST_TAGS = new Set(['linux', 'amd64', 'unix', 'gc', 'cgo']);

/**
 * `*_test.go` files `go test ./...` would compile in each module (every `go.mod`, nested modules as their
 * own). Skipped like the go tool does: files and directories starting with `.` or `_`, `testdata` and
 * `vendor` directories, modules nested inside such directories, files whose name or `//go:build` line
 * excludes linux/amd64. Other tags (`integration`) count as set only where the project's own `go test` runs
 * set them (`-tags`, in CI or the make/just/task targets it calls), for the packages those runs cover.
 * Cases: `func TestXxx(` at top level.
 */
export async function discoverGo(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const candidates = goCandidates(index);
  if (candidates.length === 0) return [];
  const runs = await runsOf(ctx, candidates);
  for (const source of new Set(runs.map((r) => r.source))) {
    const tags = [...new Set(runs.filter((r) => r.source === source).flatMap((r) => r.tags))].sort();
    const shown = tags.slice(0, 12).map((t) => `\`${t}\``).join(', ') + (tags.length > 12 ? ` and ${tags.length - 12} more` : '');
    ctx.note(`Go: build tags ${shown} are set by \`go test\` in ${source}; files that need them are listed for the packages that run covers`);
  }
  const picked = candidates.filter((c) => c.nameFits).map((c) => c.file);
  return runs.length === 0 ? withCases(ctx, picked, 'go', countGo, { keep: 'fits' })
    : withCases(ctx, picked, 'go', goCounter(runs), { keep: 'fits', depends: JSON.stringify(runs.map((r) => [r.dir, r.recursive, r.tags])) });
}

/** The tagged `go test` runs of the project, with each module's import path known. */
async function runsOf(ctx: ScanContext, candidates: ReadonlyArray<{ mod: string }>): Promise<GoTagRun[]> {
  const modules = new Map<string, string>();
  for (const mod of new Set(candidates.map((c) => c.mod))) {
    const path = /^module\s+"?([^\s"]+)/m.exec((await ctx.read(joinPath(mod, 'go.mod'))) ?? '')?.[1];
    if (path) modules.set(mod, path);
  }
  return goTagRuns(ctx, modules);
}

/**
 * A counter for files whose `//go:build` line may need the tags the project's runs set: a file counts
 * when the host alone, or the host plus the tags of a run covering its directory, builds it.
 */
function goCounter(runs: readonly GoTagRun[]): (text: string, file: string) => number {
  const scopes = runs.map((r) => ({ dir: r.dir, recursive: r.recursive, tags: new Set([...HOST_TAGS, ...r.tags]) }));
  return (text, file) => {
    const dir = dirname(file);
    const fits = buildFitsHost(text) || scopes.some((s) => (s.recursive ? s.dir === '' || dir === s.dir || dir.startsWith(s.dir + '/') : dir === s.dir)
      && buildFits(text, s.tags));
    return fits ? (text.match(/^func Test(?:[^a-z]\w*)?\(/gm) ?? []).length : -1;
  };
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
export async function noteGoLeftOut(ctx: ScanContext, index: FileIndex, rows: readonly FoundTest[]): Promise<void> {
  const candidates = goCandidates(index);
  if (candidates.length === 0) return;
  const listed = new Set(rows.filter((t) => t.framework === 'go').map((t) => t.file));
  const perModule = new Map<string, { total: number; left: number; tags: Map<string, number> }>();
  let read = 0;
  for (const { file, mod, nameFits } of candidates) {
    const counts = perModule.get(mod) ?? { total: 0, left: 0, tags: new Map<string, number>() };
    counts.total++;
    if (!listed.has(file)) {
      counts.left++;
      // What a condition would add: the custom tags the left-out files ask for (a bounded number read).
      const text = nameFits && read++ < MAX_TAG_READS ? await ctx.read(file) : undefined;
      for (const tag of text === undefined ? [] : customTags(text)) counts.tags.set(tag, (counts.tags.get(tag) ?? 0) + 1);
    }
    perModule.set(mod, counts);
  }
  const tagged = (await runsOf(ctx, candidates)).length > 0;
  for (const [mod, { total, left, tags }] of perModule) {
    if (left === 0) continue;
    const where = `Go module \`${mod === '' ? '.' : mod}\``;
    const named = tags.size === 0 ? '' : `; the build tags they name: ${[...tags].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 8).map(([t, n]) => `\`${t}\` (${n} file${n === 1 ? '' : 's'})`).join(', ')}, which no \`go test\` line projdex could read sets for them`;
    ctx.note(left === total
      ? `${where}: none of its ${total} \`_test.go\` files builds for linux/amd64 ${tagged ? 'with the tags the project\'s runs set' : 'without build tags'} (file name or \`//go:build\` line), so none is listed${named}`
      : `${where}: ${left} of ${total} \`_test.go\` files build only for other platforms or with build tags (file name or \`//go:build\` line; taken as linux/amd64, ${tagged ? 'with the tags the project\'s runs set' : 'no tags'}): not listed${named}`);
  }
}

const MAX_TAG_READS = 256;

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
  return buildFits(text, HOST_TAGS);
}

/** The build tags a `//go:build` line names besides platforms, compilers and Go versions (`integration`). */
export function customTags(text: string): string[] {
  const line = /^\/\/go:build\s+(.+)$/m.exec(text.slice(0, Math.max(0, text.search(/^package\s/m))))?.[1] ?? '';
  return [...new Set(line.match(/[\w.]+/g) ?? [])].filter((t) => !HOST_TAGS.has(t) && !GOOS.includes(t) && !GOARCH.includes(t)
    && !/^go1\.\d+$/.test(t) && t !== 'gccgo' && t !== 'ignore');
}

/** Evaluates the `//go:build` expression (before the package clause) with the given tags set. */
function buildFits(text: string, tags: ReadonlySet<string>): boolean {
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
    return t !== undefined && (tags.has(t) || /^go1\.\d+$/.test(t));
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
