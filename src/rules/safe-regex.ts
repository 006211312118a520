/**
 * A guard for regular expressions taken from project files (Jest `testRegex`, `testPathIgnorePatterns`,
 * Playwright filters, Maven `%regex[...]`): a project must not be able to write one that backtracks for
 * minutes.
 *
 * Scan processes run V8 with `--enable-experimental-regexp-engine-on-excessive-backtracks`: a pattern
 * without lookarounds or backreferences that backtracks too much is finished by V8's linear-time engine,
 * so `(a+)+$` is harmless there. The linear engine cannot run lookarounds or backreferences, so a
 * pattern holding one is accepted only when it has no quantified group that itself holds a quantifier or
 * an alternation (the shapes that backtrack exponentially). Outside a scan process (the library's
 * `scan()` in the caller's thread) the same structural rule applies to every pattern.
 */

import { noteLimit } from '../readers/budget.ts';

/**
 * Reports a refused pattern to the running scan's notes, for code that has no scan context at hand
 * (the glob compilers); a no-op outside a scan.
 */
export const notePattern = noteLimit;

/** Longest pattern accepted. Real test regexes are well under 200 characters. */
const MAX_SOURCE = 1000;

/** Whether this process finishes over-backtracking lookaround-free RegExps in linear time. */
export const LINEAR_FALLBACK = process.execArgv.includes('--enable-experimental-regexp-engine-on-excessive-backtracks');

/**
 * Compiles a project's regex, or returns null (and calls `refuse` with the reason) when it is invalid or
 * could backtrack without bound.
 *
 * @example
 * projectRegExp('(/__tests__/.*|(\\.|/)(test|spec))\\.[jt]sx?$'); // a RegExp
 * projectRegExp('(?=a)(a+)+$', '', console.log); // null: "nested quantifier after a lookaround"
 */
export function projectRegExp(source: string, flags = '', refuse: (reason: string) => void = () => {}): RegExp | null {
  const reason = regexRisk(source);
  if (reason) {
    refuse(reason);
    return null;
  }
  try {
    return new RegExp(source, flags);
  } catch {
    refuse('it is not a valid regular expression');
    return null;
  }
}

/** Why `source` is refused, or null when it is safe to run on any input. */
export function regexRisk(source: string, { linearFallback = LINEAR_FALLBACK } = {}): string | null {
  if (source.length > MAX_SOURCE) return `it is longer than ${MAX_SOURCE} characters`;
  const shape = scan(source);
  if (linearFallback && !shape.lookaround) return null;
  return shape.nested ? 'it has a repeated group holding a repetition or alternatives, which can backtrack without bound' : null;
}

/**
 * One linear pass over the pattern: whether it holds a lookaround or backreference, and whether some
 * quantified group contains a quantifier or a `|`. Classes and escapes are skipped.
 */
function scan(source: string): { lookaround: boolean; nested: boolean } {
  // Per open group: whether it (so far) holds a quantifier or an alternation.
  const stack: boolean[] = [];
  let lookaround = false;
  let nested = false;
  let lastGroupRisky = false;
  let afterGroup = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const wasAfterGroup = afterGroup;
    afterGroup = false;
    if (c === '\\') {
      const n = source[i + 1] ?? '';
      if (/[1-9k]/.test(n)) lookaround = true; // backreference
      i++;
    } else if (c === '[') {
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++;
    } else if (c === '(') {
      if (/^\?(?:[=!]|<[=!])/.test(source.slice(i + 1, i + 4))) lookaround = true;
      stack.push(false);
    } else if (c === ')') {
      lastGroupRisky = stack.pop() ?? false;
      if (lastGroupRisky && stack.length > 0) stack[stack.length - 1] = true;
      afterGroup = true;
    } else if (c === '|') {
      if (stack.length > 0) stack[stack.length - 1] = true;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      const unbounded = c !== '?' && !(c === '{' && /^\{\d+\}/.test(source.slice(i, i + 12)));
      if (c === '{' && !/^\{\d+(?:,\d*)?\}/.test(source.slice(i, i + 24))) continue; // a literal brace
      if (wasAfterGroup && lastGroupRisky && unbounded) nested = true;
      if (stack.length > 0 && unbounded) stack[stack.length - 1] = true;
      if (c === '{') i = source.indexOf('}', i);
      else if (source[i + 1] === '?' || source[i + 1] === '+') i++; // lazy or possessive marker
    }
  }
  return { lookaround, nested };
}
