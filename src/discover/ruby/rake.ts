import type { ScanContext } from '../../rules/types.ts';
import { parseShell } from '../../readers/shell/parse.ts';
import { rubyGlobRegex } from '../patterns.ts';
import { joinPath } from '../../rules/paths.ts';
import { ciLines } from '../ci-lines.ts';
import { followTasks } from '../task-files.ts';

/**
 * A Rakefile read as the tasks it defines, with the `.rake` files it loads (`load`/`import` of a literal
 * path, `Dir[...]`/`Dir.glob(...)` globs handed to `load`, `import` or `Rake.application.add_import`), and
 * which tasks a run reaches: the names the project's CI passes to `rake` (through make/just/task targets
 * too), else the default task; from there a task's prerequisites (`task a: %w[b c]`, `'x' => 'y'`), the
 * tasks its body invokes (`Rake::Task['x'].invoke`) and `alias_task(:a, :b)`. Names inside
 * `namespace :n do` blocks (read by indentation) get the `n:` prefix.
 */
export interface RakeSource {
  /** The Rakefile and the task files it loads, in load order, each with its text. */
  readonly files: ReadonlyArray<{ file: string; text: string }>;
  /** Task names reached by the project's runs (CI, else `default`). */
  readonly reached: ReadonlySet<string>;
  /** Whether CI named the tasks (else the default task was taken). */
  readonly fromCi: boolean;
}

const MAX_FILES = 64;
// `task :a => :b`, `task 'a' => %w[b]`, `Rake::TestTask.new(:a)`: the name and what follows it.
const TASK_HEAD = new RegExp(String.raw`^\s*(?:task|(?:Rake::TestTask|RSpec::Core::RakeTask|Minitest::TestTask)\.(?:new|create))`
  + String.raw`\s*\(?\s*(?::([\w]+)|["']([\w:-]+)["'])?\s*(?:(?:=>|,)\s*|(?<=\w):\s*)?(.*)$`);

export async function readRake(ctx: ScanContext, root: string): Promise<RakeSource | undefined> {
  const rakefile = joinPath(root, 'Rakefile');
  const main = await ctx.read(rakefile);
  if (main === undefined) return undefined;
  const files = [{ file: rakefile, text: main }];
  const loaded = new Set<string>();
  for (const line of main.split('\n')) {
    if (!/\b(?:load|import|add_import|require_relative)\b/.test(line)) continue;
    for (const m of line.matchAll(/Dir(?:\.glob\s*\(\s*|\s*\[\s*)["']([^"']+\.rake)["']/g)) {
      const re = rubyGlobRegex(joinPath(root, m[1]!));
      for (const f of ctx.under(root)) if (re.test(f)) loaded.add(f);
    }
    for (const m of line.matchAll(/\b(?:load|import)\s*\(?\s*["']([^"']+\.rake)["']/g)) loaded.add(joinPath(root, m[1]!));
  }
  for (const file of [...loaded].slice(0, MAX_FILES)) {
    const text = await ctx.read(file);
    if (text !== undefined) files.push({ file, text });
  }
  const tasks = taskGraph(files.map((f) => f.text));
  const called = await ciRakeTasks(ctx, root);
  const entries = called.length > 0 ? called : ['default'];
  const reached = new Set<string>();
  const visit = (name: string, depth: number): void => {
    if (reached.has(name) || depth > 16) return;
    reached.add(name);
    for (const d of tasks.get(name) ?? []) visit(d, depth + 1);
  };
  for (const e of entries) visit(e, 0);
  return { files, reached, fromCi: called.length > 0 };
}

/**
 * The task names a test-definition line's position belongs to: the `namespace` blocks around `at`,
 * judged by indentation, as a prefix (`spec:`).
 */
export function namespaceAt(text: string, at: number): string {
  const lines = text.slice(0, at).split('\n');
  const indent = (l: string): number => /^\s*/.exec(l)![0].length;
  let limit = indent(lines[lines.length - 1]!);
  const names: string[] = [];
  for (let i = lines.length - 2; i >= 0; i--) {
    const l = lines[i]!;
    if (l.trim() === '' || indent(l) >= limit) continue;
    limit = indent(l);
    const ns = /^\s*namespace\s*\(?\s*(?::(\w+)|["']([\w:-]+)["'])/.exec(l);
    if (ns) names.unshift(ns[1] ?? ns[2]!);
    if (limit === 0) break;
  }
  return names.map((n) => n + ':').join('');
}

/** Task name -> the tasks it leads to, over all the files' texts. */
function taskGraph(texts: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const add = (from: string, to: string[]): void => { graph.set(from, [...graph.get(from) ?? [], ...to]); };
  const names = (src: string): string[] => {
    const words = /%[iw][[(]([^\])]*)/.exec(src)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
    return [...words, ...[...src.replace(/%[iw][[(][^\])]*/, '').matchAll(/:([\w:]+)|["']([\w:-]+)["']/g)].map((x) => x[1] ?? x[2]!)];
  };
  for (const text of texts) {
    const lines = text.split('\n');
    let offset = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const at = offset;
      offset += line.length + 1;
      const alias = /^\s*alias_task\s*\(?\s*:?["']?([\w:]+)["']?\s*,\s*:?["']?([\w:]+)/.exec(line);
      if (alias) { add(alias[1]!, [alias[2]!]); continue; }
      const head = TASK_HEAD.exec(line);
      if (!head || (!/^\s*task\b/.test(line) && !/TestTask|RakeTask/.test(line))) continue;
      const bare = head[1] ?? head[2];
      // `task default: %w[a b]`: the name is the key, what follows its colon the prerequisites.
      const keyed = /^\s*task\s*\(?\s*(\w+):\s*(.*)$/.exec(line);
      const name = namespaceAt(text, at) + (keyed ? keyed[1]! : bare ?? (/TestTask/.test(line) ? 'test' : /RakeTask/.test(line) ? 'spec' : ''));
      if (name === '' || name.endsWith(':')) continue;
      const deps = names((keyed ? keyed[2]! : head[3]!).replace(/\bdo\b.*$|\{.*$/, ''));
      // The task's body (deeper lines) may invoke other tasks.
      const indent = /^\s*/.exec(line)![0].length;
      for (let j = i + 1; j < lines.length && (lines[j]!.trim() === '' || /^\s*/.exec(lines[j]!)![0].length > indent); j++) {
        for (const m of lines[j]!.matchAll(/Rake::Task\[\s*["':]([\w:-]+)["']?\s*\]\.(?:invoke|execute)/g)) deps.push(m[1]!);
      }
      add(name, deps);
    }
  }
  return graph;
}

/** Task names the project's CI passes to `rake` run in `root` (`''`-less: a bare `rake` is `default`). */
async function ciRakeTasks(ctx: ScanContext, root: string): Promise<string[]> {
  const out: string[] = [];
  for (const { line, dir } of await followTasks(ctx, await ciLines(ctx))) {
    if (!/\brake\b/.test(line) || dir !== root) continue;
    for (const { argv } of parseShell(line)) {
      const at = argv.findIndex((w) => w === 'rake' || w.endsWith('/rake'));
      if (at === -1) continue;
      const named = argv.slice(at + 1).filter((w) => /^[\w:-]+$/.test(w) && !w.startsWith('-') && !w.includes('='));
      out.push(...(named.length > 0 ? named : ['default']));
    }
  }
  return out;
}

/**
 * The text of the `do ... end` block opened on the line at `at`: up to the `end` written at that line's
 * indentation (an `if ... end` inside the block does not close it), or the next line alone for a block
 * that does not open one.
 */
export function blockBody(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
  const rest = text.slice(at);
  const firstEnd = rest.indexOf('\n');
  const first = firstEnd === -1 ? rest : rest.slice(0, firstEnd);
  if (!/\bdo\b|\{\s*\|/.test(first)) return first;
  const close = new RegExp(`^${indent}(?:end\\b|\\})`, 'm').exec(rest.slice(first.length));
  return close ? rest.slice(0, first.length + close.index) : rest;
}
