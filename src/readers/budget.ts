/**
 * Budgets shared by the readers and expansions: every file projdex reads may be hostile, so nesting,
 * expansion size and work are capped, and a reader that gives up says so in the running scan's notes
 * (through `readerNotes`, which `scan()` binds to its context) instead of failing silently or
 * overflowing the stack.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Deepest nesting a reader follows (brackets, XML elements). Real configs stay under 20. */
export const MAX_DEPTH = 256;
/** Longest text a variable expansion may produce, per line. */
export const MAX_EXPANDED = 64 * 1024;
/** Characters all the expansions of one file may produce together. */
export const MAX_EXPANDED_PER_FILE = 1024 * 1024;

/** The running scan's `note`, when there is one (bound with `readerNotes.run(note, fn)`). */
export const readerNotes = new AsyncLocalStorage<(message: string) => void>();

/** Adds `message` to the running scan's notes; a no-op outside a scan. */
export function noteLimit(message: string): void {
  readerNotes.getStore()?.(message);
}

/**
 * Whether brackets nest deeper than `max` anywhere in `text` (one linear pass; brackets inside strings
 * count too, which only makes the check stricter).
 *
 * @example
 * tooDeep('[[[1]]]', '[', ']', 2); // true
 */
export function tooDeep(text: string, opens: string, closes: string, max = MAX_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (opens.includes(c)) {
      if (++depth > max) return true;
    } else if (closes.includes(c) && depth > 0) depth--;
  }
  return false;
}

/**
 * `text` with `pattern`'s matches replaced by `replace`, giving up (returning undefined) once the result
 * would pass `max` characters or `budget.left` runs out: an expansion that feeds on itself stops early.
 */
export function replaceBounded(text: string, pattern: RegExp, replace: (match: RegExpExecArray) => string,
  { max = MAX_EXPANDED, budget }: { max?: number; budget?: { left: number } } = {}): string | undefined {
  const re = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g');
  const parts: string[] = [];
  let length = 0;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const piece = text.slice(last, m.index) + replace(m);
    length += piece.length;
    if (budget) budget.left -= piece.length;
    if (length > max || (budget && budget.left < 0)) return undefined;
    parts.push(piece);
    last = re.lastIndex;
    if (m[0] === '') re.lastIndex++;
  }
  parts.push(text.slice(last));
  return parts.join('');
}
