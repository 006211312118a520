/**
 * Glob patterns in the dialect the JS test runners use (picomatch / micromatch / minimatch / tinyglobby),
 * compiled once into anchored RegExps. Supported: `*`, segment-aware `**`, `?`, classes `[...]` / `[!...]`,
 * braces `{a,b}` (nested) and ranges `{1..3}`, extglobs `?(..)` `*(..)` `+(..)` `@(..)` `!(..)`, and `\` escapes.
 * Leading-`!` negation is a list-level concept, handled by `compileGlobs`.
 */
import { notePattern } from '../readers/safe-regex.ts';

export interface GlobOptions {
  /** Whether `*`, `?`, classes and `**` may match a segment that starts with `.`. @default false */
  readonly dot?: boolean;
  /** Case-insensitive matching. @default false */
  readonly nocase?: boolean;
}

/** A compiled list of globs: `match` is true when an include matches and no `!`-exclude does. */
export interface GlobMatcher {
  match(path: string): boolean;
  readonly include: RegExp | null;
  readonly exclude: RegExp | null;
}

const MAGIC = /[*?[\]{}()!+@]/;

/** Budgets of one glob (a project's config may hold any text): length, brace alternatives, wildcards. */
const MAX_GLOB = 1000;
const MAX_EXPANSIONS = 1024;
const MAX_WILDCARDS_PER_SEGMENT = 6;
/** `!(...)` compiles to a lookahead, which V8's linear-time fallback cannot run: fewer wildcards beside it. */
const MAX_WILDCARDS_WITH_NEGATION = 4;
const NEVER = '[^\\s\\S]';

/** Whether a string has glob magic (as opposed to a plain path). */
export function isGlob(text: string): boolean {
  return MAGIC.test(text.replace(/\\./g, ''));
}

/**
 * Compiles one glob into an anchored RegExp over POSIX paths.
 *
 * @example
 * globToRegExp('**\/?(*.)+(spec|test).[jt]s?(x)').test('src/a.test.tsx'); // true
 */
export function globToRegExp(pattern: string, options: GlobOptions = {}): RegExp {
  // A refused glob (see `globRisk`) matches nothing; the scan's notes say why.
  return new RegExp(`^(?:${globSource(pattern, options)})$`, options.nocase ? 'i' : '');
}

/**
 * Compiles a list of globs; entries starting with `!` become excludes.
 *
 * @example
 * compileGlobs(['src/**\/*.ts', '!**\/*.d.ts']).match('src/a.d.ts'); // false
 */
export function compileGlobs(patterns: readonly string[], options: GlobOptions = {}): GlobMatcher {
  const inc: string[] = [];
  const exc: string[] = [];
  const dot = options.dot ?? false;
  for (const p of patterns) {
    const negated = p.startsWith('!') && !p.startsWith('!(');
    const body = negated ? p.slice(1) : p;
    if (refused(body)) continue;
    (negated ? exc : inc).push(...translated(body, dot));
  }
  const flags = options.nocase ? 'i' : '';
  // Perf: one alternation per list, so a path is tested against two RegExps whatever the list length.
  const include = inc.length ? compiled(`^(?:${factorAnyDirs(inc, dot)})$`, flags) : null;
  const exclude = exc.length ? compiled(`^(?:${factorAnyDirs(exc, dot)})$`, flags) : null;
  return {
    include,
    exclude,
    match: (path) => include !== null && include.test(path) && !(exclude?.test(path) ?? false),
  };
}

// Perf: a monorepo's packages repeat the same globs (a runner's defaults, a shared preset), and a scan
// compiled them once per package: ~30 ms of a 100k-file scan. Translations and RegExps (no `g`/`y` flag, so
// no state) are kept across scans, a bounded number, by their exact text. Refusals are decided (and noted)
// on every call, before the cache.
const translations = new Map<string, readonly string[]>();
const regexps = new Map<string, RegExp>();
const MAX_KEPT = 2_000;

function kept<T>(cache: Map<string, T>, key: string, build: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= MAX_KEPT) cache.clear();
    cache.set(key, (value = build()));
  }
  return value;
}

const translated = (body: string, dot: boolean): readonly string[] =>
  kept(translations, `${dot ? 1 : 0}${body}`, () => expandBraces(body).map((x) => translate(x, dot)));

const compiled = (source: string, flags: string): RegExp => kept(regexps, `${flags}/${source}`, () => new RegExp(source, flags));

/**
 * Joins translated alternatives, sharing one leading-`**\/` prefix among those that start with it:
 * `P(?:a|b)` accepts what `Pa|Pb` does, but the engine walks the directory segments once rather than
 * once per pattern (Vitest 3's 19 default excludes over a 1M-file tree: ~180 ms -> a fraction).
 */
function factorAnyDirs(sources: readonly string[], dot: boolean): string {
  const prefix = `/?(?:${segmentSource(dot)}/)*`;
  const shared = sources.filter((s) => s.startsWith(prefix));
  if (shared.length < 2) return sources.join('|');
  const rest = sources.filter((s) => !s.startsWith(prefix));
  return [`${prefix}(?:${shared.map((s) => s.slice(prefix.length)).join('|')})`, ...rest].join('|');
}

// No lookaheads: a lookaround-free RegExp that backtracks too much is finished by V8's linear-time engine
// in scan processes (see readers/safe-regex.ts). With `dot`, any segment but `.` and `..`; without, none starting with `.`.
const segmentSource = (dot: boolean): string => (dot ? '(?:[^/.]|\\.[^/.]|\\.\\.[^/])[^/]*' : '[^/.][^/]*');

/** RegExp source (unanchored) for one glob: braces expanded first, then each alternative translated. */
export function globSource(pattern: string, { dot = false }: GlobOptions = {}): string {
  if (refused(pattern)) return NEVER;
  return expandBraces(pattern).map((p) => translate(p, dot)).join('|');
}

/** True (and a note on the running scan) when `pattern` is over a budget of {@link globRisk}. */
function refused(pattern: string): boolean {
  const risk = globRisk(pattern);
  if (risk) notePattern(`glob ${JSON.stringify(pattern.slice(0, 80))} is not used: ${risk}`);
  return risk !== null;
}

/**
 * Why a glob is refused, or null: too long, braces expanding past {@link MAX_EXPANSIONS} patterns, a
 * repeated extglob holding a repetition (`+(+(a))`), too many wildcards in one segment (`*a*a*a*a*a*a*a`),
 * or a `!(...)` with several wildcards. Real configs stay far below each budget.
 */
export function globRisk(pattern: string): string | null {
  if (pattern.length > MAX_GLOB) return `it is longer than ${MAX_GLOB} characters`;
  if (countExpansions(pattern, MAX_EXPANSIONS) > MAX_EXPANSIONS) return `its braces expand to more than ${MAX_EXPANSIONS} patterns`;
  const repeating: boolean[] = [];
  let wildcards = 0;
  let total = 0;
  let negation = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') { i++; continue; }
    if (c === '/' && repeating.length === 0) { wildcards = 0; continue; }
    if (c === ')' && repeating.length > 0) { repeating.pop(); continue; }
    const extglob = '?*+@!'.includes(c) && pattern[i + 1] === '(';
    const repeats = c === '*' || (c === '+' && extglob);
    if (repeats && repeating.includes(true)) return 'it repeats a pattern inside a repetition, which can backtrack without bound';
    if (c === '*' || extglob) {
      if (++wildcards > MAX_WILDCARDS_PER_SEGMENT) return `it has more than ${MAX_WILDCARDS_PER_SEGMENT} wildcards in one path segment`;
      total++;
      while (c === '*' && pattern[i + 1] === '*') i++;
    }
    if (extglob) {
      if (c === '!') negation = true;
      repeating.push(c === '*' || c === '+');
      i++;
    }
  }
  if (negation && total > MAX_WILDCARDS_WITH_NEGATION) return `it has \`!(...)\` and more than ${MAX_WILDCARDS_WITH_NEGATION} wildcards`;
  return null;
}

/** How many patterns `expandBraces` would return, counted without building them; stops past `limit`. */
function countExpansions(pattern: string, limit: number, depth = 0): number {
  const open = findBrace(pattern);
  if (open === -1) return 1;
  if (depth > 64) return limit + 1;
  const { close, parts } = splitBrace(pattern, open);
  if (close === -1) return 1;
  const range = parts.length === 1 ? /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])$/.exec(parts[0]!) : null;
  let alts = 0;
  if (range) alts = expandRange(range[1]!, range[2]!).length;
  else if (parts.length < 2) return countExpansions(pattern.slice(0, open) + '\\{' + pattern.slice(open + 1), limit, depth + 1);
  else for (const part of parts) if ((alts += countExpansions(part, limit, depth + 1)) > limit) return limit + 1;
  const tails = countExpansions(pattern.slice(close + 1), limit, depth + 1);
  return Math.min(alts * tails, limit + 1);
}

/** Bash-style brace expansion, nested, with numeric and letter ranges. `{a}` stays literal. */
export function expandBraces(pattern: string): string[] {
  const open = findBrace(pattern);
  if (open === -1) return [pattern];
  const { close, parts } = splitBrace(pattern, open);
  if (close === -1) return [pattern];
  const head = pattern.slice(0, open);
  const tails = expandBraces(pattern.slice(close + 1));
  let alts: string[];
  const range = parts.length === 1 ? /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])$/.exec(parts[0]!) : null;
  if (range) alts = expandRange(range[1]!, range[2]!);
  else if (parts.length < 2) return expandBraces(head + '\\{' + pattern.slice(open + 1));
  else alts = parts.flatMap(expandBraces);
  const out: string[] = [];
  for (const a of alts) for (const t of tails) out.push(head + a + t);
  return out;
}

function findBrace(p: string): number {
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(p, i) ?? i;
    else if (c === '{') return i;
  }
  return -1;
}

function splitBrace(p: string, open: number): { close: number; parts: string[] } {
  const parts: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(p, i) ?? i;
    else if (c === '{') depth++;
    else if (c === '}' && depth > 0) depth--;
    else if (c === '}') { parts.push(p.slice(start, i)); return { close: i, parts }; }
    else if (c === ',' && depth === 0) { parts.push(p.slice(start, i)); start = i + 1; }
  }
  return { close: -1, parts };
}

function expandRange(a: string, b: string): string[] {
  const numeric = /\d/.test(a);
  const from = numeric ? Number(a) : a.charCodeAt(0);
  const to = numeric ? Number(b) : b.charCodeAt(0);
  const step = from <= to ? 1 : -1;
  const out: string[] = [];
  for (let v = from; out.length < 1000; v += step) {
    out.push(numeric ? String(v) : String.fromCharCode(v));
    if (v === to) break;
  }
  return out;
}

/** Index of the `]` closing the class opened at `i`, or null when it is not a class. */
function classEnd(p: string, i: number): number | null {
  let j = i + 1;
  if (p[j] === '!' || p[j] === '^') j++;
  if (p[j] === ']') j++;
  for (; j < p.length; j++) {
    if (p[j] === '\\') j++;
    else if (p[j] === ']') return j;
    else if (p[j] === '/') return null;
  }
  return null;
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/g;
const escapeRe = (s: string): string => s.replace(REGEX_SPECIAL, '\\$&');

/** Translates a brace-free glob. `**` is special only as a whole segment. */
function translate(p: string, dot: boolean): string {
  const segments = splitSegments(p);
  const seg = segmentSource(dot);
  let out = '';
  for (let s = 0; s < segments.length; s++) {
    const text = segments[s]!;
    const last = s === segments.length - 1;
    if (text === '**') {
      // `a/**/b` also matches `a/b`, `**/b` matches `b`, and `a/**` matches `a` and everything below it.
      if (last && s === 0) out += `${seg}(?:/${seg})*`;
      else if (last) out = out.slice(0, -1) + `(?:/${seg})*`;
      // A leading `**/` also accepts an absolute path (its empty first segment), as picomatch does.
      else out += s === 0 ? `/?(?:${seg}/)*` : `(?:${seg}/)*`;
      continue;
    }
    out += translateSegment(text, dot);
    if (!last) out += '/';
  }
  return out;
}

/** Splits on `/` outside classes and extglob parentheses. */
function splitSegments(p: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(p, i) ?? i;
    else if (c === '(') depth++;
    else if (c === ')' && depth > 0) depth--;
    else if (c === '/' && depth === 0) { out.push(p.slice(start, i)); start = i + 1; }
  }
  out.push(p.slice(start));
  return out;
}

/** One path segment (may hold extglobs whose alternatives contain `/`, which is rare and tolerated). */
function translateSegment(text: string, dot: boolean): string {
  // Without `dot`, a segment whose first token is a wildcard must not start with `.`.
  const literalStart = text[0] !== undefined && !'*?[!+@'.includes(text[0]) || text.startsWith('\\');
  return !dot && !literalStart ? noDotStart(text, 0, text.length) ?? NEVER : translateBody(text, 0, text.length);
}

/**
 * `p[from, to)` translated so that what it matches does not start with `.`, without a lookahead where
 * possible (see `segmentSource`): `*` is either one non-dot character and anything, or empty with the
 * rest under the same rule; `?` and negated classes exclude `.`. Null when nothing can match.
 */
function noDotStart(p: string, from: number, to: number): string | null {
  if (from >= to) return '';
  const c = p[from]!;
  if (c === '*' && p[from + 1] !== '(') {
    let end = from;
    while (p[end + 1] === '*') end++;
    const rest = noDotStart(p, end + 1, to);
    const nonEmpty = `[^/.][^/]*?${translateBody(p, end + 1, to)}`;
    return rest === null ? nonEmpty : `(?:${nonEmpty}|${rest})`;
  }
  if (c === '?' && p[from + 1] !== '(') return `[^/.]${translateBody(p, from + 1, to)}`;
  if (c === '.') return null;
  if (c === '[') {
    const end = classEnd(p, from);
    const negated = p[from + 1] === '!' || p[from + 1] === '^';
    if (end !== null && end < to && negated) return `[^/.${classInner(p.slice(from + 2, end))}]${translateBody(p, end + 1, to)}`;
  }
  // An extglob or a class that may hold `.` first: the one lookahead left (wildcard budgets apply).
  return `(?!\\.)${translateBody(p, from, to)}`;
}

/** A glob class's characters as RegExp class text. */
function classInner(inner: string): string {
  return inner.replace(/\\(.)/g, '$1').replace(/[\\\]^]/g, '\\$&');
}

function translateBody(p: string, from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) {
    const c = p[i]!;
    const next = p[i + 1];
    if ('?*+@!'.includes(c) && next === '(') {
      const close = matchParen(p, i + 1, to);
      if (close !== -1) {
        const alts = splitAlternatives(p, i + 2, close).map(([a, b]) => translateBody(p, a, b)).join('|');
        const atEnd = close + 1 === to;
        if (c === '?') out += `(?:${alts})?`;
        else if (c === '*') out += `(?:${alts})*`;
        else if (c === '+') out += `(?:${alts})+`;
        else if (c === '@') out += `(?:${alts})`;
        else out += atEnd ? `(?:(?!(?:${alts})$)[^/]*?)` : `(?:(?!(?:${alts}))[^/]*?)`;
        i = close;
        continue;
      }
    }
    if (c === '\\' && i + 1 < to) out += escapeRe(p[++i]!);
    else if (c === '*') {
      while (p[i + 1] === '*') i++;
      out += '[^/]*?';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = classEnd(p, i);
      if (end === null || end >= to) { out += '\\['; continue; }
      let inner = p.slice(i + 1, end);
      const negate = inner[0] === '!' || inner[0] === '^';
      if (negate) inner = inner.slice(1);
      inner = classInner(inner);
      out += negate ? `[^/${inner}]` : `[${inner}]`;
      i = end;
    } else out += escapeRe(c);
  }
  return out;
}

/** Index of the `)` matching the `(` at `open`, or -1. */
function matchParen(p: string, open: number, to: number): number {
  let depth = 0;
  for (let i = open; i < to; i++) {
    const c = p[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(p, i) ?? i;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

function splitAlternatives(p: string, from: number, to: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let depth = 0;
  let start = from;
  for (let i = from; i < to; i++) {
    const c = p[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(p, i) ?? i;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) { out.push([start, i]); start = i + 1; }
  }
  out.push([start, to]);
  return out;
}

/**
 * micromatch and picomatch (Jest's testMatch, Vitest's include/exclude through tinyglobby) read a bare
 * `(a|b)` as a group, where bash and minimatch read the parentheses literally: `*.(spec|test).ts` is
 * rewritten as `*.@(spec|test).ts` for this matcher. Extglobs, classes and escapes are left as written.
 */
export function picomatchGroups(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') { out += pattern.slice(i, i + 2); i++; continue; }
    if (c === '[') {
      const end = classEnd(pattern, i);
      if (end !== null) { out += pattern.slice(i, end + 1); i = end; continue; }
    }
    out += c === '(' && !'?*+@!'.includes(pattern[i - 1] ?? '') ? '@(' : c;
  }
  return out;
}
