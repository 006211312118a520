/**
 * Glob dialects of the non-JS runners, each compiled once to an anchored RegExp over relative POSIX paths:
 * Python `fnmatch` (pytest, unittest), Ruby `Dir.glob` (RSpec, Rake, ExUnit's Path.wildcard is close
 * enough) and Ant-style patterns (Maven Surefire includes/excludes).
 */
import { globRisk } from '../rules/glob.ts';
import { notePattern, projectRegExp } from '../readers/safe-regex.ts';

/** Matches nothing: what a pattern over budget compiles to (the scan's notes say so). */
const NEVER = /[^\s\S]/;

/** Whether `pattern` is over a glob budget (see `globRisk`); notes it on the running scan. */
function refused(pattern: string): boolean {
  const risk = globRisk(pattern);
  if (risk) notePattern(`pattern ${JSON.stringify(pattern.slice(0, 80))} is not used: ${risk}`);
  return risk !== null;
}

/**
 * Python's `fnmatch.translate`: `*` and `?` also match `/`, `[!x]` negates, case-sensitive (POSIX).
 *
 * @example
 * fnmatchRegex('test_*.py').test('test_a.py'); // true
 */
export function fnmatchRegex(pattern: string): RegExp {
  if (refused(pattern)) return NEVER;
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') out += '.*';
    else if (ch === '?') out += '.';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) { out += '\\['; continue; }
      let body = pattern.slice(i + 1, end);
      if (body.startsWith('!')) body = '^' + body.slice(1);
      out += '[' + body.replace(/\\/g, '\\\\') + ']';
      i = end;
    } else out += escape(ch);
  }
  return new RegExp('^' + out + '$', 's');
}

/**
 * Ruby `Dir.glob` with default flags: `*` stays inside one segment and never matches a leading dot,
 * `**\/` crosses zero or more non-hidden directories, `{a,b}` alternates, `?` is one character.
 *
 * @example
 * rubyGlobRegex('spec/**\/*_spec.rb').test('spec/models/user_spec.rb'); // true
 */
export function rubyGlobRegex(pattern: string): RegExp {
  if (refused(pattern)) return NEVER;
  return new RegExp('^(?:' + expandBraces(pattern).map(rubyOne).join('|') + ')$');
}

function rubyOne(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    const atSegmentStart = i === 0 || pattern[i - 1] === '/';
    if (ch === '*' && pattern[i + 1] === '*' && atSegmentStart && (pattern[i + 2] === '/' || i + 2 === pattern.length)) {
      out += pattern[i + 2] === '/' ? '(?:[^/.][^/]*/)*' : '(?:[^/.][^/]*(?:/[^/.][^/]*)*)?';
      i += 2;
    } else if (ch === '*') {
      while (pattern[i + 1] === '*') i++;
      // Never a leading dot, and no lookahead where the next character tells (so V8 may run it in linear time).
      const next = pattern[i + 1];
      if (!atSegmentStart) out += '[^/]*';
      else if (next === '.') out += '[^/.][^/]*';
      else if (next === undefined || !'?[\\'.includes(next)) out += '(?:[^/.][^/]*)?';
      else out += '(?!\\.)[^/]*';
    } else if (ch === '?') out += atSegmentStart ? '[^/.]' : '[^/]';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) { out += '\\['; continue; }
      const body = pattern.slice(i + 1, end);
      out += '[' + (body.startsWith('^') || body.startsWith('!') ? '^' + body.slice(1) : body).replace(/\\/g, '\\\\') + ']';
      i = end;
    } else out += escape(ch);
  }
  return out;
}

/** Expands `{a,b}` alternations (nested too) into separate patterns. */
export function expandBraces(pattern: string): string[] {
  const open = pattern.indexOf('{');
  if (open === -1) return [pattern];
  let depth = 0;
  const cuts: number[] = [];
  for (let i = open; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) {
      const head = pattern.slice(0, open);
      const tail = pattern.slice(i + 1);
      const parts: string[] = [];
      let start = open + 1;
      for (const cut of [...cuts, i]) { parts.push(pattern.slice(start, cut)); start = cut + 1; }
      return parts.flatMap((p) => expandBraces(head + p + tail));
    } else if (ch === ',' && depth === 1) cuts.push(i);
  }
  return [pattern];
}

/**
 * Ant-style pattern as Maven uses it: `**` spans directories, `*` and `?` stay in one segment.
 * `%regex[...]` is a raw regular expression over the same relative path.
 *
 * @example
 * antRegex('**\/*Test.java').test('com/acme/FooTest.java'); // true
 */
export function antRegex(pattern: string): RegExp {
  const raw = /^%regex\[(.*)\]$/s.exec(pattern);
  if (raw) {
    return projectRegExp('^(?:' + raw[1] + ')$') ?? /(?!)/; // invalid or unsafe: matches nothing
  }
  if (refused(pattern)) return NEVER;
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*' && pattern[i + 1] === '*') {
      if (pattern[i + 2] === '/') { out += '(?:.*/)?'; i += 2; } else { out += '.*'; i += 1; }
    } else if (ch === '*') out += '[^/]*';
    else if (ch === '?') out += '[^/]';
    else out += escape(ch);
  }
  return new RegExp('^' + out + '$');
}

function escape(ch: string): string {
  return /[.+^${}()|[\]\\]/.test(ch) ? '\\' + ch : ch;
}
