/**
 * A guard for regular expressions taken from project files (Jest `testRegex`, `testPathIgnorePatterns`,
 * Playwright filters, Maven `%regex[...]`): a project must not be able to write one that backtracks for
 * minutes.
 *
 * Scan processes run V8 with `--enable-experimental-regexp-engine-on-excessive-backtracks`: a pattern
 * without lookarounds or backreferences that backtracks too much is finished by V8's linear-time engine,
 * so `(a+)+$` is harmless there. The linear engine cannot run lookarounds or backreferences, so a
 * pattern holding a lookaround is accepted only when it has no quantified group that itself holds a
 * quantifier or an alternation (the shapes that backtrack exponentially) and at most two open-ended
 * repetitions (more backtrack polynomially: `(?=.*.*.*x)`). Backreferences are refused everywhere. Outside
 * a scan process (the library's `scan()` in the caller's thread) the same rules apply to every pattern.
 */

import { noteLimit } from './budget.ts';

/**
 * Reports a refused pattern to the running scan's notes, for code that has no scan context at hand
 * (the glob compilers); a no-op outside a scan.
 */
export const notePattern = noteLimit;

/**
 * Open-ended repetitions accepted beside a lookaround (or outside a scan process) in a `^`-anchored
 * pattern.
 */
const MAX_UNBOUNDED = 2;

/** Longest pattern accepted. Real test regexes are well under 200 characters. */
const MAX_SOURCE = 1000;

/** Whether this process finishes over-backtracking lookaround-free RegExps in linear time. */
export const LINEAR_FALLBACK = process.execArgv.includes(
  '--enable-experimental-regexp-engine-on-excessive-backtracks',
);

/**
 * Compiles a project's regex, or returns null (and calls `refuse` with the reason) when it is invalid or
 * could backtrack without bound.
 *
 * @example
 * projectRegExp('(/__tests__/.*|(\\.|/)(test|spec))\\.[jt]sx?$'); // a RegExp
 * projectRegExp('(?=a)(a+)+$', '', console.log); // null: "nested quantifier after a lookaround"
 */
export function projectRegExp(
  source: string,
  flags = '',
  refuse: (reason: string) => void = () => {},
): RegExp | null {
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
  // A backreference makes matching NP-hard in general: `(.*)\1` alone is quadratic, and worse with more.
  if (shape.backreference) return 'it uses a backreference, which can backtrack without bound';
  if (linearFallback && !shape.lookaround) return null;
  if (shape.nested) {
    return 'it has a repeated group holding a repetition or alternatives, which can backtrack without bound';
  }
  // Each open-ended repetition (`.*`, `a+`, `{2,}`) can multiply the work by the path's length, and so does
  // an unanchored start (every position is tried): up to quadratic stays under 0.1 s on a 4096-character
  // path; `(?=.*a.*b)` is cubic (minutes), `(?=.*.*.*x)` worse.
  const allowed = source.startsWith('^') ? MAX_UNBOUNDED : MAX_UNBOUNDED - 1;
  if (shape.unbounded > allowed) {
    return `it has ${shape.lookaround ? 'a lookaround and ' : ''}more than ${allowed} `
      + `open-ended repetition${allowed === 1 ? '' : 's'} `
      + `(such as .*)${allowed < MAX_UNBOUNDED ? ' without a leading ^' : ''}, `
      + 'which can backtrack for minutes';
  }
  return null;
}

/**
 * One linear pass over the pattern: whether it holds a lookaround or a backreference, whether some
 * quantified group contains a quantifier or a `|`, and how many open-ended repetitions it has. Classes
 * and escapes are skipped.
 */
function scan(
  source: string,
): { lookaround: boolean; backreference: boolean; nested: boolean; unbounded: number } {
  // Per open group: whether it (so far) holds a quantifier or an alternation.
  const stack: boolean[] = [];
  let lookaround = false;
  let backreference = false;
  let nested = false;
  let unbounded = 0;
  let lastGroupRisky = false;
  let afterGroup = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const wasAfterGroup = afterGroup;
    afterGroup = false;
    if (c === '\\') {
      const n = source[i + 1] ?? '';
      if (/[1-9k]/.test(n)) backreference = true;
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
      // Repeats more than a fixed count (`{1,30}` too: nested, such counts multiply)...
      const repeats = c !== '?' && !(c === '{' && /^\{\d+\}/.test(source.slice(i, i + 12)));
      // ...and repeats without an upper bound, which scale with the input.
      const open = c === '*' || c === '+' || (c === '{' && /^\{\d+,\}/.test(source.slice(i, i + 24)));
      if (c === '{' && !/^\{\d+(?:,\d*)?\}/.test(source.slice(i, i + 24))) continue; // a literal brace
      if (open) unbounded++;
      if (wasAfterGroup && lastGroupRisky && repeats) nested = true;
      if (stack.length > 0 && repeats) stack[stack.length - 1] = true;
      if (c === '{') i = source.indexOf('}', i);
      else if (source[i + 1] === '?' || source[i + 1] === '+') i++; // lazy or possessive marker
    }
  }
  return { lookaround, backreference, nested, unbounded };
}
