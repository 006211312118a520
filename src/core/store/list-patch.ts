/**
 * A project's tests list as JSON (`TESTS_JSON`'s bytes) after a save that wrote a few of its rows, made from
 * the list as it was before and those rows as SQLite writes them (`TEST_ROW_JSON`). A rescan that touched
 * 1% of a 100k-file tree rebuilt its 1.5 MB list from every row (10-16 ms of the HTTP thread before its
 * answer); patched, the unchanged rows are copied as they were.
 */

/** One row of the list: its file, and its JSON as SQLite writes it now, or null when the row is gone. */
export interface ListEdit { readonly file: string; readonly row: string | null }

const ROW_START = '{"id":';
const PATH_KEY = '"file_path":"';

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
  // Where each row starts: `{"id":` never occurs inside a JSON string, whose quotes are escaped. Searched
  // in a one-byte string (offsets are byte offsets): ~9k Buffer searches cost more than the whole patch.
  const text = before.toString('latin1');
  const starts: number[] = [];
  for (let at = text.indexOf(ROW_START, 1); at !== -1; at = text.indexOf(ROW_START, at + ROW_START.length)) {
    starts.push(at);
  }
  const endOf = (i: number): number => (i + 1 < starts.length ? starts[i + 1]! - 1 : before.length - 1);
  /** Row `i`'s file path against `key`, as SQLite orders them: by UTF-8 bytes. */
  const compareAt = (i: number, key: Buffer): number => {
    // Its bytes as they stand in the list when nothing in them is escaped (SQLite escapes only `"`, `\`
    // and control characters), else decoded.
    const open = text.indexOf(PATH_KEY, starts[i]) + PATH_KEY.length;
    const close = text.indexOf('"', open);
    if (!text.slice(open, close).includes('\\')) return Buffer.compare(before.subarray(open, close), key);
    const row = JSON.parse(before.toString('utf8', starts[i], endOf(i))) as { file_path: string };
    return Buffer.compare(Buffer.from(row.file_path), key);
  };
  const placed = edits.map((edit) => {
    const key = Buffer.from(edit.file);
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (compareAt(mid, key) < 0) low = mid + 1;
      else high = mid;
    }
    const found = low < starts.length && compareAt(low, key) === 0;
    return { key, index: low, found, row: edit.row };
  }).sort((a, b) => Buffer.compare(a.key, b.key));
  for (let i = 1; i < placed.length; i++) if (placed[i]!.key.equals(placed[i - 1]!.key)) return undefined;
  const rows: Array<Buffer | string> = [];
  let next = 0; // the first old row not yet copied
  const copyUpTo = (end: number): void => {
    if (end > next) rows.push(before.subarray(starts[next], endOf(end - 1)));
    next = Math.max(next, end);
  };
  for (const { index, found, row } of placed) {
    copyUpTo(index);
    if (found) next = index + 1;
    if (row !== null) rows.push(row);
  }
  copyUpTo(starts.length);
  const parts: Array<Buffer | string> = ['['];
  rows.forEach((row, i) => { if (i > 0) parts.push(','); parts.push(row); });
  parts.push(']');
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
}
