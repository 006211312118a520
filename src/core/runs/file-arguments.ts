/**
 * Runners projdex reads no report of, but that take test files as arguments and then run only those:
 * a run of some files passes them, so only those run (their results stay unread; the exit code decides).
 * Runners whose arguments add to their own file list (tape, uvu globs), filter by substring (bun test, as
 * Vitest does), or take files only through a flag of their own are not listed: they run whole.
 */
import { bin } from './reporters/reporter.ts';

const STARTS: ReadonlyMap<string, (words: readonly string[]) => boolean> = new Map([
  ['ava', (w) => bin(w[0]) === 'ava'],
  ['exunit', (w) => bin(w[0]) === 'mix' && w[1] === 'test'],
]);

/** Whether `words` (the command's last simple command) start `runner`, one that takes test files as arguments. */
export function takesFiles(runner: string | null, words: readonly string[]): boolean {
  return runner !== null && (STARTS.get(runner)?.(words) ?? false);
}
