/**
 * Parses JSON that may carry `//` and `/* *\/` comments and trailing commas (tsconfig, .mocharc.jsonc,
 * deno.jsonc, VS Code style). Returns `undefined` instead of throwing: a broken config file is skipped,
 * never fatal to a scan.
 */
export function parseJsonc(text: string): unknown {
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

/** Removes comments, then trailing commas, outside strings; every other character is kept. */
export function stripJsonc(text: string): string {
  return dropTrailingCommas(dropComments(text));
}

/** Length of the string literal starting at `i` (a `"`), escapes included. */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
  return j + 1;
}

function dropComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function dropTrailingCommas(text: string): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
      continue;
    }
    if (c === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] === '}' || text[j] === ']') { i++; continue; }
    }
    out += c;
    i++;
  }
  return out;
}
