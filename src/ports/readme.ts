import type { ScanContext } from '../rules/types.ts';
import { dirname } from '../rules/paths.ts';
import { pick, type PortRow } from './common.ts';
import { portsInCommand } from './command.ts';
import { scriptsBeside } from './scripts.ts';

/**
 * Commands a README tells the reader to run, for projects whose only start command is written there
 * (`flask run`, `mkdocs serve`, `./manage.py runserver`, `medusa develop`, `npx inngest-cli dev`, `tilt up`,
 * `docker run -p 8080:8080 ...`). Only lines of fenced shell blocks (```sh, bash, shell, zsh, console,
 * shell-session) are read, and of a `console` block only the lines after a `$ ` prompt (the rest is output);
 * only the command rules' known tools and explicit listen ports give rows, attributed to the README with no
 * script name. A package manager's `npm run dev` is left to the script it names (already read). Prose,
 * unlabelled blocks and other languages are never read: a README mixes local, deploy and example commands,
 * and a fenced shell block is the one place it says "run this".
 */

const MAX_FILES = 20;
const MAX_TEXT = 256 * 1024;
const MAX_LINES = 500;
const MAX_COMMAND = 4096;
const README = /^readme\.(?:md|markdown)$/i;
const SKIPPED = /(?:^|\/)(?:examples?|_examples|testdata|tests?|fixtures|third_party)\//;
const SHELL = new Set(['sh', 'bash', 'shell', 'zsh', 'console', 'shell-session', 'sh-session', 'shellsession']);
const PROMPTED = new Set(['console', 'shell-session', 'sh-session', 'shellsession']);

export async function findReadmePorts(ctx: ScanContext): Promise<PortRow[]> {
  // The project's own READMEs: the root's and those of its top two folder levels (a backend/ or apps/web/).
  const files = pick(ctx, (b) => README.test(b), (p) => !SKIPPED.test(p) && p.split('/').length <= 3)
    .filter((file) => !isLibraryReadme(ctx, dirname(file)))
    .sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  if (files.length > MAX_FILES) {
    ctx.note(`${files.length} README files; only the first ${MAX_FILES} were read for start commands`);
  }
  const perFile = await Promise.all(files.slice(0, MAX_FILES).map(async (file) => {
    const text = (await ctx.read(file))?.slice(0, MAX_TEXT);
    if (text === undefined) return [];
    const beside = await scriptsBeside(ctx, file);
    // Script names only: `yarn serve` is the package's script (read with package.json), not the serve tool.
    const options = beside.scripts === undefined ? {} : { scripts: new Set(beside.scripts.keys()) };
    const dir = dirname(file);
    return shellCommands(text).flatMap((line): PortRow[] => {
      const found = portsInCommand(line, options);
      return [
        ...found.ports.map((port) => ({ port, script_name: null, config_source: file, dir })),
        ...found.defaults.map((d) => ({ port: d.port, script_name: null, config_source: file, dir, key: d.key })),
      ];
    });
  }));
  return perFile.flat();
}

/**
 * A library's README shows how to run the reader's own app with it (sinatra's `ruby myapp.rb`, `rackup -p
 * 4567`): those are not ports of the library. A library here: a folder with a `*.gemspec`, a Rust crate with
 * no binary (`Cargo.toml` without `src/main.rs` or `src/bin/`), or a Python project laid out as
 * `src/<package>/__init__.py` beside its `pyproject.toml` or `setup.py` with no `manage.py`.
 */
function isLibraryReadme(ctx: ScanContext, dir: string): boolean {
  const at = (name: string): string => (dir === '' ? name : `${dir}/${name}`);
  if (pick(ctx, (b) => b.endsWith('.gemspec'), (p) => dirname(p) === dir).length > 0) return true;
  const crate = ctx.has(at('Cargo.toml'));
  if (crate && !ctx.has(at('src/main.rs')) && ctx.under(at('src/bin')).length === 0) return true;
  if (!(ctx.has(at('pyproject.toml')) || ctx.has(at('setup.py'))) || ctx.has(at('manage.py'))) return false;
  return ctx.byName('__init__.py').some((f) => dirname(dirname(f)) === at('src'));
}

/** The command lines of a Markdown text's fenced shell blocks (continuation lines joined, prompts stripped). */
export function shellCommands(markdown: string): string[] {
  const out: string[] = [];
  let fence: { readonly marker: string; readonly prompted: boolean } | undefined;
  let pending = '';
  for (const raw of markdown.split('\n')) {
    if (out.length >= MAX_LINES) break;
    const line = raw.trimEnd();
    const open = /^ {0,3}(`{3,}|~{3,})[ \t]*([\w-]*)/.exec(line);
    if (fence === undefined) {
      if (open) {
        const lang = open[2]!.toLowerCase();
        // Any other block is still a fence to skip over: its closing line must not open a shell block.
        fence = { marker: open[1]!, prompted: PROMPTED.has(lang) };
        if (!SHELL.has(lang)) fence = { marker: `${open[1]!}\0skip`, prompted: false };
      }
      continue;
    }
    const marker = fence.marker.split('\0')[0]!;
    if (line.trim().startsWith(marker) && line.trim().replace(/[`~]/g, '') === '') {
      fence = undefined;
      pending = '';
      continue;
    }
    if (fence.marker.endsWith('\0skip')) continue;
    let command = line.trim();
    if (pending === '') {
      const prompt = /^(?:\$|%|>)\s+/.exec(command);
      if (fence.prompted && !prompt) continue;
      if (prompt) command = command.slice(prompt[0].length);
      if (command.startsWith('#')) continue;
    }
    if (command.endsWith('\\')) {
      // A continued command longer than any real one is dropped, not handed to the shell reader.
      pending = pending.length > MAX_COMMAND ? ' ' : `${pending}${command.slice(0, -1)} `;
      continue;
    }
    out.push(pending + command);
    pending = '';
  }
  return out;
}
