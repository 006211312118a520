/**
 * Just enough of POSIX `sh` word splitting to read package.json scripts, Procfiles and tox commands
 * statically: quotes, backslash escapes, `VAR=value` prefixes and the `&&`, `||`, `;`, `|`, `&`
 * separators. No expansion is performed: `$PORT` stays the literal text `$PORT`, and an unquoted glob
 * keeps its characters (callers decide what `sh` would expand). Which `$` the shell would expand (unquoted
 * or inside double quotes, not escaped) is kept per word, since `'$HOME'` and `"$HOME"` read the same.
 */

/** One simple command of a script line. */
export interface ShellCommand {
  /** Leading `NAME=value` assignments, in order (`PORT=3000 node server.js`). */
  readonly env: ReadonlyArray<readonly [name: string, value: string]>;
  /** The command word and its arguments, quotes removed. */
  readonly argv: readonly string[];
  /** For each argv word, whether any part of it was quoted (so `sh` would not glob-expand it). */
  readonly quoted: readonly boolean[];
  /**
   * Per argv word: offsets in its text of the `$` that `sh` would expand (not single-quoted, not
   * escaped).
   */
  readonly dollars: ReadonlyArray<readonly number[]>;
  /** Per `env` entry: the same offsets in its value. */
  readonly envDollars: ReadonlyArray<readonly number[]>;
}

const SEPARATORS = new Set(['&&', '||', ';', '|', '&', '\n']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Splits a script line into its simple commands.
 *
 * @example
 * parseShell('cross-env PORT=3000 next dev -p 3001 && echo "done"');
 * // [{ env: [], argv: ['cross-env', 'PORT=3000', 'next', 'dev', '-p', '3001'], ... },
 * //  { argv: ['echo', 'done'], ... }]
 */
export function parseShell(line: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let words: Array<{ text: string; quoted: boolean; bareStart: number; dollars: number[] }> = [];
  let word = '';
  let dollars: number[] = [];
  let quoted = false;
  let inWord = false;
  // Length of the unquoted prefix of the current word: `FOO='a b'` is an assignment, `'FOO=a'` is not.
  let bareStart = -1;

  const endWord = (): void => {
    if (inWord) {
      words.push({ text: word, quoted, bareStart: bareStart === -1 ? word.length : bareStart, dollars });
    }
    word = '';
    dollars = [];
    quoted = false;
    inWord = false;
    bareStart = -1;
  };
  const endCommand = (): void => {
    endWord();
    const env: Array<[string, string]> = [];
    const envDollars: number[][] = [];
    let i = 0;
    while (
      i < words.length && ASSIGNMENT.test(words[i]!.text) && words[i]!.text.indexOf('=') < words[i]!.bareStart
    ) {
      const text = words[i]!.text;
      const eq = text.indexOf('=');
      env.push([text.slice(0, eq), text.slice(eq + 1)]);
      envDollars.push(words[i]!.dollars.filter((d) => d > eq).map((d) => d - eq - 1));
      i++;
    }
    const rest = words.slice(i);
    if (rest.length > 0 || env.length > 0) {
      commands.push({
        env,
        argv: rest.map((w) => w.text),
        quoted: rest.map((w) => w.quoted),
        dollars: rest.map((w) => w.dollars),
        envDollars,
      });
    }
    words = [];
  };

  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    const two = line.slice(i, i + 2);
    if ((c === "'" || c === '"') && bareStart === -1) bareStart = word.length;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      const stop = end === -1 ? line.length : end;
      word += line.slice(i + 1, stop);
      quoted = inWord = true;
      i = stop;
    } else if (c === '"') {
      inWord = quoted = true;
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) i++;
        else if (line[i] === '$') dollars.push(word.length);
        word += line[i];
      }
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (two === '&&' || two === '||') {
      endCommand();
      i++;
    } else if (SEPARATORS.has(c)) {
      endCommand();
    } else if (c === ' ' || c === '\t' || c === '\r') {
      endWord();
    } else if (c === '#' && !inWord) {
      // A comment runs to the end of the line.
      const nl = line.indexOf('\n', i);
      i = nl === -1 ? line.length : nl - 1;
    } else if (c === '(' || c === ')') {
      endCommand();
    } else {
      if (c === '$') dollars.push(word.length);
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}
