/**
 * A static estimate of the test cases a file declares: calls of `it`, `test`, `specify` and their
 * variants (`it.only`, `test.each(...)`, `test.skip`, `fit`, `xit`, tagged `test.each\`...\``).
 * `describe` blocks, hooks and `test.describe`/`test.step` are not cases. A `.each` table counts once,
 * subtests (`t.test`) are not counted, and comments and string contents are blanked first so text
 * that merely mentions `it(` does not count.
 */
const CASE = /(?<![\w$.])(?:it|test|specify|fit|xit|xtest|xspecify)(?:\.(?:only|skip|todo|each|concurrent|failing|fails|serial|fixme|slow|sequential|skipIf|runIf|cb|failing))*\s*(?:\(|`)/g;

/** Counts test declarations in a JS/TS source text. */
export function countCases(text: string): number {
  // `match` leaves no state on CASE (it starts from and ends at lastIndex 0) and makes one array of the
  // matched strings, not an iterator and a match object (with its indexes and groups) per case.
  return blank(text).match(CASE)?.length ?? 0;
}

/**
 * Replaces comments and string contents with spaces (quotes kept), so only code is searched.
 * Perf: code between them is copied as whole slices, never one character at a time (a string built by
 * `+=` per character is a chain of tiny strings: most of a large file's counting time and garbage), and
 * found by a RegExp search for the next slash or quote, not by stepping through it in JS.
 */
function blank(src: string): string {
  const special = /[/"'`]/g;
  let out = '';
  let from = 0; // start of the code not yet copied
  let i = 0;
  while (i < src.length) {
    special.lastIndex = i;
    if (!special.test(src)) break;
    i = special.lastIndex - 1;
    const c = src.charCodeAt(i);
    if (c === SLASH && src.charCodeAt(i + 1) === SLASH) {
      out += src.slice(from, i);
      const e = src.indexOf('\n', i);
      i = from = e === -1 ? src.length : e;
    } else if (c === SLASH && src.charCodeAt(i + 1) === STAR) {
      out += src.slice(from, i) + ' ';
      const e = src.indexOf('*/', i + 2);
      i = from = e === -1 ? src.length : e + 2;
    } else if (c === SLASH) {
      i++;
    } else {
      let j = i + 1;
      // A quote other than a backtick ends at the line's end too.
      while (j < src.length && src.charCodeAt(j) !== c
        && !(c !== BACKTICK && src.charCodeAt(j) === NEWLINE)) {
        j += src.charCodeAt(j) === BACKSLASH ? 2 : 1;
      }
      const quote = src[i]!;
      out += src.slice(from, i) + quote + quote;
      i = from = j + 1;
    }
  }
  return from < src.length ? out + src.slice(from) : out;
}

const SLASH = 47;
const STAR = 42;
const BACKTICK = 96;
const NEWLINE = 10;
const BACKSLASH = 92;
