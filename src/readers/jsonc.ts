import { MAX_DEPTH, noteLimit, tooDeep } from './budget.ts';

/**
 * Parses JSON that may carry `//` and `/* *\/` comments and trailing commas (tsconfig, .mocharc.jsonc,
 * deno.jsonc, VS Code style). Returns `undefined` instead of throwing: a broken config file is skipped,
 * never fatal to a scan.
 */
export function parseJsonc(input: string): unknown {
  // Windows tools (Visual Studio, PowerShell's UTF-8) start files with a byte order mark JSON.parse refuses.
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  // JSON.parse takes any depth, but what walks the value after it (stringify, copies) would overflow.
  if (tooDeep(text, '[{', ']}')) {
    noteLimit(`a JSON file nests deeper than ${MAX_DEPTH} brackets; it was not read`);
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    // Fall through to the tolerant path only when strict JSON fails: most files are plain JSON.
  }
  try {
    return JSON.parse(stripJsonc(text));
  } catch {
    return undefined;
  }
}

/** Removes comments and trailing commas outside strings; every other character is kept. */
export function stripJsonc(text: string): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (c === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      out += text.slice(i, end + 1);
      i = end + 1;
    } else if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
      i = skipComment(text, i);
    } else {
      // A comma is dropped when only white space and comments stand between it and a closing bracket.
      if (c !== ',' || !'}]'.includes(text[skipTrivia(text, i + 1)] ?? '')) out += c;
      i++;
    }
  }
  return out;
}

/** Index just past the comment starting at `i`. */
function skipComment(text: string, i: number): number {
  if (text[i + 1] === '/') {
    const nl = text.indexOf('\n', i);
    return nl === -1 ? text.length : nl;
  }
  const end = text.indexOf('*/', i + 2);
  return end === -1 ? text.length : end + 2;
}

/** Index of the first character at or after `i` that is neither white space nor inside a comment. */
function skipTrivia(text: string, i: number): number {
  while (i < text.length) {
    if (/\s/.test(text[i]!)) i++;
    else if (text[i] === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) i = skipComment(text, i);
    else break;
  }
  return i;
}
