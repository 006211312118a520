/**
 * What stands in for a `test` script a package lacks (or whose text is npm's placeholder, which runs
 * nothing): the test steps of the project's CI, the record of what it runs (ci.ts), else its own
 * `test:*` / `test-*` scripts, each followed like a package script. Undefined when neither reaches a
 * runner, so the caller falls back to the runners the package configures.
 */

import { globToRegExp } from '../../../rules/glob.ts';
import { ciTests } from './ci.ts';
import { planScript, scriptMissing, type PlanOptions, type ScriptPlan } from './script.ts';
import type { Pkg } from '../types.ts';

/** A followed stand-in: its plan, the script key it was planned under, and what it was, in words. */
export interface StandIn { readonly plan: ScriptPlan; readonly script: string; readonly what: string; readonly note: string }

/** The key the stand-in text is planned under: not a name a package.json script could be run by. */
export const STAND_IN_SCRIPT = '\0stand-in';
const NAMED_TEST = /^test[:_-]./;
const MAX_SHOWN = 4;

/** Why a package (its package.json `label`) has no test command, as a user reads it. */
export function missingWhy(pkg: Pkg, label: string): string {
  const scripts = pkg.json.scripts as Record<string, unknown> | undefined;
  return typeof scripts?.test === 'string'
    ? `${label}: its test script is npm's placeholder (\`echo "Error: no test specified" && exit 1\`), which runs no tests`
    : `${label} has no test script`;
}

/** A package's files under a dot folder or named with a dot (`.github/workflows/ci.yml`, `.gitlab-ci.yml`). */
export function dotFilesOf(pkg: Pkg): string[] {
  return pkg.files.filter((f) => f.startsWith('.'));
}

/**
 * The stand-in for a package without a real `test` script, `label` its package.json for notes. CI is
 * read only for the project root (CI files live there, among `dotFiles`); the `test:*` scripts only when
 * `named`.
 */
export async function standIn(pkg: Pkg, label: string, options: PlanOptions, named = true,
  dotFiles: () => readonly string[] = () => dotFilesOf(pkg)): Promise<StandIn | undefined> {
  const scripts = (pkg.json.scripts ?? {}) as Record<string, unknown>;
  const real = (n: string): boolean => typeof scripts[n] === 'string' && !scriptMissing(scripts, n);
  // A CI line's workflow expression reads as `*`: the name then stands for every script it matches.
  const hasScript = (n: string): boolean => real(n)
    || (/[*?]/.test(n) && Object.keys(scripts).some((s) => real(s) && globToRegExp(n.replace(/:/g, '/')).test(s.replace(/:/g, '/'))));
  const plan = async (text: string, globScripts = false): Promise<ScriptPlan | undefined> => {
    const planned = await planScript({ ...scripts, [STAND_IN_SCRIPT]: text }, STAND_IN_SCRIPT, { ...options, globScripts });
    return planned.invocations.length + planned.delegations.length + planned.dirs.length > 0 ? planned : undefined;
  };
  if (pkg.dir === '') {
    const ci = await ciTests(dotFiles(), (f) => pkg.read(f), hasScript);
    const lines = [...new Set(ci.flatMap((c) => c.lines))];
    const planned = lines.length > 0 ? await plan(lines.join('\n'), true) : undefined;
    if (planned) {
      const files = ci.filter((c) => c.lines.length > 0).map((c) => c.file).join(', ');
      const open = [...new Set(ci.flatMap((c) => c.undecided))];
      const wide = [...new Set(ci.flatMap((c) => c.widened))];
      if (wide.length > 0) planned.notes.push(`CI names ${listed(wide)} through a workflow expression; `
        + 'every script of the package it can name was followed');
      // A step whose script a workflow expression names (`test-e2e-${{ matrix.browser }}`) is said, not guessed.
      if (open.length > 0) planned.notes.push(`CI also runs ${listed(open)}, `
        + 'whose script a workflow expression chooses; not followed');
      const shown = listed(lines) + (lines.length > MAX_SHOWN ? ` and ${lines.length - MAX_SHOWN} more` : '');
      return { plan: planned, script: STAND_IN_SCRIPT, what: `the test steps of ${files}`,
        note: `${missingWhy(pkg, label)}; followed the test steps CI runs (${files}), the record of what the project runs: ${shown}` };
    }
  }
  // Workspace members with test scripts of their own come before the root's `test:*` scripts (`named` false).
  const names = named ? Object.keys(scripts).filter((n) => NAMED_TEST.test(n) && hasScript(n)).sort() : [];
  const planned = names.length > 0 ? await plan(names.map((n) => `npm run ${n}`).join('\n')) : undefined;
  if (!planned) return undefined;
  const list = names.map((n) => `\`${n}\``).join(', ');
  return { plan: planned, script: STAND_IN_SCRIPT, what: `its ${list} scripts`,
    note: `${missingWhy(pkg, label)}; followed its ${list} script${names.length === 1 ? '' : 's'} instead` };
}

/** The first few lines, each in backticks. */
function listed(lines: readonly string[]): string {
  return lines.slice(0, MAX_SHOWN).map((l) => `\`${l}\``).join(', ');
}
