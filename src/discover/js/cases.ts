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
  let n = 0;
  for (const _ of blank(text).matchAll(CASE)) n++;
  return n;
}

/** Replaces comments and string contents with spaces (quotes kept), so only code is searched. */
function blank(src: string): string {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '/' && src[i + 1] === '/') {
      const e = src.indexOf('\n', i);
      i = e === -1 ? src.length : e;
    } else if (c === '/' && src[i + 1] === '*') {
      const e = src.indexOf('*/', i + 2);
      i = e === -1 ? src.length : e + 2;
      out += ' ';
    } else if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < src.length && src[j] !== c && !(c !== '`' && src[j] === '\n')) j += src[j] === '\\' ? 2 : 1;
      out += c + c;
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
