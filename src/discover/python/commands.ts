import type { ScanContext } from '../../rules/types.ts';
import { parseIni, type Ini } from '../../readers/ini.ts';
import { parseToml, tomlGet, type TomlValue } from '../../readers/toml.ts';
import { joinPath } from '../../rules/paths.ts';
import { commandsFromLine, fromWords, type PyCommand } from './words.ts';
import { ciCommands, makeCommands, scriptCommand, taskFileCommands } from './sources.ts';

export type { PyCommand } from './words.ts';

/**
 * The test commands a Python project declares in `base`, in the order projdex trusts them: tox
 * (`tox.ini`, `tox.toml`, `[tool.tox]`), `noxfile.py` `session.run(...)` literals, the Makefile's test
 * target, pyproject scripts (hatch, pdm, poe) named `test`/`tests`, then the CI workflow when none of
 * those names one. A `runtests.py` they call (or that exists alone) is read for the runner it reaches.
 *
 * @example
 * await declaredPyCommands(ctx); // [{ runner: 'unittest', args: ['discover', '-s', 'tests'], source: 'tox.ini' }]
 */
export async function declaredPyCommands(ctx: ScanContext, base = ''): Promise<PyCommand[]> {
  const out: PyCommand[] = [];
  const tox = await ctx.read(joinPath(base, 'tox.ini'));
  if (tox !== undefined) out.push(...toxIni(ctx, parseIni(tox), joinPath(base, 'tox.ini'), base));
  const pyproject = await ctx.read(joinPath(base, 'pyproject.toml'));
  const pp = pyproject === undefined ? undefined : parseToml(pyproject);
  const legacy = tomlGet(pp, 'tool.tox.legacy_tox_ini');
  if (typeof legacy === 'string') out.push(...toxIni(ctx, parseIni(legacy), joinPath(base, 'pyproject.toml'), base));
  const toxToml = await ctx.read(joinPath(base, 'tox.toml'));
  const toxDoc = toxToml === undefined ? tomlGet(pp, 'tool.tox') : parseToml(toxToml);
  for (const cmd of arrays(tomlGet(toxDoc as never, 'env_run_base.commands'))) {
    const words = cmd.map((w) => substitute(ctx, base, w));
    const found = fromWords(words.filter(Boolean), joinPath(base, toxToml === undefined ? 'pyproject.toml' : 'tox.toml'));
    if (found) out.push({ ...found, text: cmd.join(' ') });
  }
  const nox = await ctx.read(joinPath(base, 'noxfile.py'));
  if (nox !== undefined) {
    for (const m of nox.matchAll(/session\.run\(([^)]{0,2000})\)/g)) {
      const words = [...m[1]!.matchAll(/(?:^|,)\s*["']([^"']*)["']/g)].map((w) => w[1]!);
      const found = fromWords(words, joinPath(base, 'noxfile.py'));
      if (found) out.push({ ...found, text: words.join(' ') });
    }
  }
  out.push(...await makeCommands(ctx, base));
  if (out.length === 0) out.push(...await taskFileCommands(ctx, base));
  out.push(...pyprojectScripts(pp, joinPath(base, 'pyproject.toml')));
  if (out.length === 0) out.push(...await ciCommands(ctx, base));
  else if (out.some((o) => o.runner === 'pytest')) {
    // CI that runs pytest again in another directory (with its own config, or the one it finds above it)
    // runs that directory's suite too.
    for (const cmd of await ciCommands(ctx, base)) {
      const cwd = cmd.cwd ?? base;
      if (cmd.runner === 'pytest' && cwd !== base && !out.some((o) => (o.cwd ?? base) === cwd)) out.push({ ...cmd, alsoRuns: true });
    }
  }
  if (out.length === 0 && ctx.has(joinPath(base, 'runtests.py'))) {
    out.push({ runner: 'unittest', args: [], source: joinPath(base, 'runtests.py'), text: 'python runtests.py', script: 'runtests.py' });
  }
  const resolved: PyCommand[] = [];
  for (const cmd of out) {
    const next = cmd.script === undefined && cmd.module === undefined ? cmd : await scriptCommand(ctx, base, cmd);
    if (next) resolved.push(next);
  }
  return resolved;
}

/**
 * `[testenv]` commands (else those of the first `[testenv:...]` that runs tests), one command per line
 * after joining `\` continuations, with tox's substitutions: `{toxinidir}`/`{tox_root}` is the project,
 * `{posargs:default}` its default, `{envpython}`/`{env_python}` python, `{envsitepackagesdir}/pkg` (tox 4:
 * `{env_site_packages_dir}/pkg`) the package's source
 * in the repository (`src/pkg` or `pkg`); `changedir` sets where it runs.
 */
function toxIni(ctx: ScanContext, ini: Ini, source: string, base: string): PyCommand[] {
  const sections = [...ini.keys()].filter((s) => s === 'testenv' || s.startsWith('testenv:'));
  for (const name of sections) {
    const section = ini.get(name)!;
    const commands = section.get('commands') ?? ini.get('testenv')?.get('commands');
    if (commands === undefined) continue;
    const changedir = section.get('changedir') ?? ini.get('testenv')?.get('changedir');
    const cwd = changedir === undefined ? undefined : joinPath(base, substitute(ctx, base, changedir));
    const found = commands.replace(/\\\n/g, ' ').split('\n').flatMap((line) => commandsFromLine(substitute(ctx, base, line), source, cwd === undefined ? { base } : { cwd, base }));
    if (found.length > 0) return found;
  }
  return [];
}

function substitute(ctx: ScanContext, base: string, text: string): string {
  return text
    // `py3,coverage: cmd` runs only in envs with that factor; the command itself is what counts here.
    .replace(/^\s*!?[\w{},.-]+:\s+(?=\S)/, '')
    // tox 4's `{/}` and `{:}` are the platform's path and list separators (`{tox_root}{/}tests`).
    .replace(/\{\/\}/g, '/').replace(/\{:\}/g, ':')
    // `{tty:on:off}` is `off` outside a terminal, as in a plain run from a script.
    .replace(/\{tty:[^:{}]*(?::([^{}]*))?\}/g, (_m, off: string | undefined) => off ?? '')
    // `{env:NAME:default}` is the default unless the environment sets it; `{env:NAME}` is empty.
    .replace(/\{env:\w+(?::([^{}]*))?\}/g, (_m, dflt: string | undefined) => dflt ?? '')
    // The installed package is the repository's own source: `src/pkg` or `pkg`.
    .replace(/\{(?:envsitepackagesdir|env_site_packages_dir)\}\/?([\w.-]*)/g, (_m, pkg: string) => {
      const src = joinPath(base, 'src', pkg);
      return ctx.has(src + '/__init__.py') || ctx.has(src + '.py') ? `./src/${pkg}` : `./${pkg}`;
    })
    .replace(/\{(?:toxinidir|tox_root)\}\/?/g, './')
    .replace(/\{posargs(?::([^{}]*))?\}/g, (_m, dflt: string | undefined) => dflt ?? '')
    .replace(/\{env_?python\}|\{env_?bin_?dir\}\/python[\d.]*/g, 'python')
    .replace(/\{env_?bin_?dir\}\//g, '');
}

/** `[tool.hatch.envs.*.scripts]`, `[tool.pdm.scripts]`, `[tool.poe.tasks]` entries named test/tests. */
function pyprojectScripts(doc: Parameters<typeof tomlGet>[0], source: string): PyCommand[] {
  const out: PyCommand[] = [];
  const tables: TomlValue[] = [];
  const envs = tomlGet(doc, 'tool.hatch.envs');
  if (envs && typeof envs === 'object' && !Array.isArray(envs)) {
    for (const env of ['default', 'test', 'tests', 'hatch-test', ...Object.keys(envs)]) tables.push(tomlGet(envs, `${env}.scripts`)!);
  }
  tables.push(tomlGet(doc, 'tool.pdm.scripts')!, tomlGet(doc, 'tool.poe.tasks')!);
  for (const table of tables) {
    if (!table || typeof table !== 'object' || Array.isArray(table)) continue;
    for (const key of ['test', 'tests']) {
      let value = table[key];
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        // pdm `{ cmd = ["pytest", "tests"] }` is one argv; `{ cmd = "..." }` / `{ shell = "..." }` one line.
        const cmd = value.cmd ?? value.shell;
        if (Array.isArray(cmd)) { const found = fromWords(cmd.filter((w): w is string => typeof w === 'string'), source); if (found) out.push(found); continue; }
        value = cmd;
      }
      const lines = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v) => typeof v === 'string') : [];
      for (const line of lines) {
        // hatch/pdm `{args:default}` is the default when no arguments are given.
        out.push(...commandsFromLine(line.replace(/\{\{?args(?::([^{}]*))?\}\}?/g, (_m, d: string | undefined) => d ?? ''), source));
      }
    }
    if (out.length > 0) return out;
  }
  return out;
}

function arrays(value: TomlValue | undefined): string[][] {
  if (!Array.isArray(value)) return [];
  return value.filter(Array.isArray).map((a) => (a as TomlValue[]).filter((w): w is string => typeof w === 'string'));
}
