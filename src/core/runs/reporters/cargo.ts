/**
 * cargo test: stable libtest has no machine-readable format, so its human output is read. Each test
 * binary's section starts with cargo's banner (`Running unittests src/lib.rs (target/debug/deps/fx-…)`,
 * `Running tests/it.rs (…)`, `Doc-tests fx`), then `test a::b::name ... ok|FAILED|ignored` lines and
 * `---- a::b::name stdout ----` failure blocks. Banners go to stderr and results to stdout, so the step
 * runs with both on one pipe to keep their order. A test is placed on the module file its path names,
 * else on its target's root file; a test that lands on no file the scan lists is named in a note.
 */
import { cargoPackages, docSection, moduleFile, targetSection, type CargoSection } from './cargo-packages.ts';
import { bin, cleanMessage, type LineReader, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';

/** Lines of a failure block kept for its message. */
const KEPT_LINES = 30;
/** Test names listed in the note about tests that could not be placed. */
const NAMED = 5;

const BANNER = /^\s*Running (?:unittests )?(.+?) \((.+)\)\s*$/;
const DOC_BANNER = /^\s*Doc-tests (\S+)\s*$/;
const RESULT = /^test (.+) \.\.\. (ok|FAILED|ignored)\b/;
const FAILURE_START = /^---- (.+) stdout ----$/;

interface Result { readonly section: CargoSection; readonly name: string; readonly status: TestOutcome['status']; message?: string }

export const cargo: Reporter = {
  runner: 'cargo',
  defaultCommand: 'cargo test',
  mergeStderr: true,
  accepts: (words) => bin(words[0]) === 'cargo' && words[1] === 'test',
  refuse: (invocation) => {
    if (invocation.last.some((w) => w === '-q' || w === '--quiet')) return 'with `--quiet` the test binaries print dots, not test names';
    if (invocation.last.includes('--no-run')) return 'the command builds the tests without running them (`--no-run`)';
    return undefined;
  },
  // A file is a target of its own only as an integration test (`--test it`); a unit test's module is not.
  wholeFor: (files, words) => (words.includes('--') ? 'the command passes arguments to the test binaries (after `--`), '
    + 'after which no target can be named: the whole command ran'
    : files.every((f) => integrationName(f) !== undefined) ? undefined
      : 'cargo runs test targets, not files, and a unit test file is part of its crate: the whole command ran'),
  // Words after the command's own `--` go to the test binaries: cargo's flags cannot follow them.
  args: (ctx) => (ctx.words.includes('--') ? []
    : ['--no-fail-fast', ...(ctx.files ?? []).flatMap((f) => ['--test', integrationName(f)!])]),
  stdout: (ctx) => cargoReader(ctx),
};

/** `tests/it.rs` and `tests/it/main.rs` are the integration target `it`. */
function integrationName(file: string): string | undefined {
  return /\/tests\/([^/]+)\.rs$/.exec(file)?.[1] ?? /\/tests\/([^/]+)\/main\.rs$/.exec(file)?.[1];
}

/** Reads cargo's combined output line by line; every line is shown as it is. */
export function cargoReader(ctx: ReportContext): LineReader {
  const packages = cargoPackages(ctx);
  const results: Result[] = [];
  let section: CargoSection = { lost: 'tests printed before any `Running` banner' };
  let failure: { name: string; lines: string[] } | undefined;
  const endFailure = (): void => {
    if (!failure) return;
    const { name, lines } = failure;
    const found = results.findLast((r) => r.section === section && r.name === name);
    if (found) found.message = cleanMessage(lines.join('\n').trim());
    failure = undefined;
  };
  const read = (line: string): void => {
    const banner = BANNER.exec(line);
    const doc = banner ? undefined : DOC_BANNER.exec(line);
    if (banner || doc) {
      endFailure();
      section = banner ? targetSection(banner[1]!, banner[2]!, packages) : docSection(doc![1]!, packages);
      return;
    }
    const result = RESULT.exec(line);
    if (result) {
      endFailure();
      results.push({ section, name: result[1]!, status: result[2] === 'ok' ? 'passed' : result[2] === 'FAILED' ? 'failed' : 'skipped' });
      return;
    }
    const start = FAILURE_START.exec(line);
    if (start) { endFailure(); failure = { name: start[1]!, lines: [] }; return; }
    if (failure && (line === 'failures:' || line.startsWith('test result:'))) endFailure();
    else if (failure && failure.lines.length < KEPT_LINES) failure.lines.push(line);
  };
  const placed = (): { outcomes: TestOutcome[]; lost: string[] } => {
    endFailure();
    const known = new Set(ctx.known);
    const outcomes: TestOutcome[] = [];
    const lost: string[] = [];
    for (const r of results) {
      const file = fileOf(r);
      if (file && known.has(file)) {
        outcomes.push({ file, name: r.name, status: r.status, ms: null, ...(r.message !== undefined ? { message: r.message } : {}) });
      } else lost.push(r.section.lost ? `${r.name} (${r.section.lost})` : r.name);
    }
    return { outcomes, lost };
  };
  return {
    line(line) { read(line); return line; },
    outcomes: () => placed().outcomes,
    notes() {
      const { lost } = placed();
      const notes: string[] = [];
      if (ctx.words.includes('--') && results.some((r) => r.status === 'failed')) {
        notes.push('the command passes arguments to the test binaries (after `--`), so projdex could not add `--no-fail-fast`: '
          + 'cargo stops after the first test binary that fails, and the files of the binaries after it keep their previous status');
      }
      if (ctx.words.some((w) => w === '--nocapture' || w === '--show-output')) {
        notes.push('with `--nocapture` a test\'s own output can break its result line: such a test is not reported');
      }
      if (lost.length === 0) return notes;
      const more = lost.length > NAMED ? `, and ${lost.length - NAMED} more` : '';
      return [...notes, `${lost.length} test${lost.length === 1 ? '' : 's'} could not be placed on a test file the scan lists, `
        + `so no file carries their result: ${lost.slice(0, NAMED).join(', ')}${more}`];
    },
  };
}

/** The file a test belongs to: its module's file in a target, the file a doc test is named after. */
function fileOf(r: Result): string | undefined {
  if (r.section.root) return moduleFile(r.section.root, r.name);
  if (r.section.docDir) return `${r.section.docDir}/${r.name.split(' - ')[0]}`;
  return undefined;
}
