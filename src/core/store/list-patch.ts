/**
 * A project's tests list as JSON (`TESTS_JSON`'s bytes) after a save that wrote a few of its rows, made from
 * the list as it was before and those rows as SQLite writes them (`TEST_ROW_JSON`). A rescan that touched
 * 1% of a 100k-file tree rebuilt its 1.5 MB list from every row (10-16 ms of the HTTP thread before its
 * answer); patched, the unchanged rows are copied as they were.
 */

/** One row of the list: its file, and its JSON as SQLite writes it now, or null when the row is gone. */
export interface ListEdit { readonly file: string; readonly row: string | null }

const ROW_START = Buffer.from('{"id":');
const PATH_KEY = Buffer.from('"file_path":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
/** The first step of an edit's search from the last one's place: a few rows. */
const GALLOP_BYTES = 512;

/**
 * `before` with `edits` made, in the list's order (file paths as SQLite's BINARY collation sorts them: by
 * their UTF-8 bytes), or undefined when `before` is not such a list or a file is edited twice.
 *
 * @example
 * patchList(Buffer.from('[{"id":1,...,"file_path":"a.test.js",...}]'),
 *   [{ file: 'b.test.js', row: '{"id":2,...}' }]);
 */
export function patchList(before: Buffer, edits: readonly ListEdit[]): Buffer | undefined {
  if (before.length < 2 || before[0] !== 0x5b || before[before.length - 1] !== 0x5d) return undefined;
  // Rows are found by their bytes: `{"id":` never occurs inside a JSON string, whose quotes are escaped, so
  // the first one at or after any offset starts a row. Perf: each edit is placed by halving byte ranges
  // (~20 short looks), not by copying the whole list into a string and listing every row's start first
  // (a 1% rescan of the 100k-file tree: ~1 ms less of the HTTP thread, and 1.5 MB less garbage).
  const end = before.length - 1; // the closing bracket, where a row after the last one would start
  // Perf: byte loops over the few hundred bytes each step looks at, not Buffer methods (a call into C++
  // costs more than the search).
  const startsWith = (at: number, bytes: Buffer): boolean => {
    for (let k = 0; k < bytes.length; k++) if (before[at + k] !== bytes[k]) return false;
    return true;
  };
  /** The first row starting at or after `from`, or `end`. */
  const rowAt = (from: number): number => {
    for (let at = from; at < end; at++) if (before[at] === OPEN_BRACE && startsWith(at, ROW_START)) return at;
    return end;
  };
  const rowAfter = (start: number): number => rowAt(start + ROW_START.length);
  /** The end of the row at `start` (the comma after it, or the closing bracket). */
  const rowEnd = (start: number): number => {
    const next = rowAfter(start);
    return next === end ? end : next - 1;
  };
  // Set when a row holds no file path: not a list of rows, so no patch (below).
  let malformed = false;
  /** The file path of the row at `start` against `key`, as SQLite orders them: by UTF-8 bytes. */
  const compareAt = (start: number, key: Buffer): number => {
    let open = start + ROW_START.length;
    while (open < end && !startsWith(open, PATH_KEY)) open++;
    if (open >= end) { malformed = true; return 0; }
    open += PATH_KEY.length;
    // Its bytes as they stand in the list up to the closing quote, unless one is escaped (SQLite escapes
    // only `"`, `\` and control characters): then decoded.
    for (let i = open, k = 0; ; i++, k++) {
      const byte = before[i]!;
      if (byte === BACKSLASH) break;
      if (byte === QUOTE) return k === key.length ? 0 : -1;
      if (k === key.length) return 1;
      if (byte !== key[k]) return byte - key[k]!;
    }
    const row = JSON.parse(before.toString('utf8', start, rowEnd(start))) as { file_path: string };
    return Buffer.compare(Buffer.from(row.file_path), key);
  };
  const first = rowAt(1);
  const keyed = edits.map((edit) => ({ key: Buffer.from(edit.file), row: edit.row }))
    .sort((a, b) => Buffer.compare(a.key, b.key));
  for (let i = 1; i < keyed.length; i++) if (keyed[i]!.key.equals(keyed[i - 1]!.key)) return undefined;
  // Each edit's place: the first row whose path is not below its key. Rows before `low` are below it, rows
  // from `high` are not. Keys in order, so each search starts where the last one ended, with steps that
  // double until they pass the key (many edits lie close together), then halves the range left.
  let from = first;
  const placed = keyed.map(({ key, row }) => {
    let low = from;
    let high = end;
    for (let step = GALLOP_BYTES; low < end; step *= 2) {
      const at = rowAt(Math.min(end, low + step));
      if (at === end || compareAt(at, key) >= 0) { high = at; break; }
      low = rowAfter(at);
    }
    while (low < high) {
      const mid = low + ((high - low) >> 1);
      let at = rowAt(mid);
      if (at >= high) at = low; // no row starts in [mid, high): the one at `low` decides
      if (compareAt(at, key) < 0) low = rowAfter(at);
      else high = at;
    }
    from = low;
    return { at: low, found: low < end && compareAt(low, key) === 0, row };
  });
  if (malformed) return undefined;
  const rows: Array<Buffer | string> = [];
  let next = first; // the start of the first old row not yet copied (or `end`)
  const copyUpTo = (at: number): void => {
    if (at > next) rows.push(before.subarray(next, at === end ? end : at - 1));
    next = Math.max(next, at);
  };
  for (const { at, found, row } of placed) {
    copyUpTo(at);
    if (found) next = rowAfter(at);
    if (row !== null) rows.push(row);
  }
  copyUpTo(end);
  const parts: Array<Buffer | string> = ['['];
  rows.forEach((row, i) => { if (i > 0) parts.push(','); parts.push(row); });
  parts.push(']');
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
}
