/**
 * How a recorded test command is started: as an argv without a shell when it is one plain invocation,
 * through `/bin/sh -c` only when it needs a shell (operators, redirects, variables, globs, `VAR=x cmd`).
 */

/** Characters that only a shell gives meaning to. */
const SHELL_SYNTAX = /[|&;<>()$`*?[\]{}~\\\n]/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** Package-runner prefixes that only locate the binary: `npx jest` is `jest` with node_modules/.bin on PATH. */
const LOCATORS = new Set(['npx', 'pnpx', 'bunx']);

export interface Invocation {
  /** Words of a plain invocation; undefined when the command needs a shell. */
  readonly argv?: string[];
  /** The command's text for `/bin/sh -c`, when it needs a shell. */
  readonly script?: string;
  /** The words of the command's last simple command (the one appended arguments reach). */
  readonly last: string[];
}

/**
 * Splits a command into words (single and double quotes, no expansions). Returns undefined for text
 * whose quotes do not close.
 */
export function splitWords(text: string): string[] | undefined {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end === -1) return undefined;
      word += text.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === ' ' || c === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Reads a recorded command; undefined when it is empty or its quoting is broken. */
export function readCommand(command: string): Invocation | undefined {
  const text = command.trim();
  if (text === '') return undefined;
  const unquoted = text.replace(/'[^']*'|"[^"$`\\]*"/g, '');
  const words = splitWords(text);
  if (!words || words.length === 0) return undefined;
  if (!SHELL_SYNTAX.test(unquoted) && !ASSIGNMENT.test(words[0]!)) {
    const argv = LOCATORS.has(words[0]!) && words.length > 1 ? words.slice(1) : words;
    return { argv, last: withoutEnvSetters(argv) };
  }
  // The last simple command of an `a && b` chain receives appended arguments ("$@").
  const tail = text.split(/&&|\|\||;/).at(-1) ?? '';
  const lastWords = /[|<>`$()]/.test(tail) ? [] : (splitWords(tail.trim()) ?? []);
  return { script: text, last: withoutEnvSetters(lastWords) };
}

/** Python tools that run the rest of the line in the project's environment, passing arguments through. */
const PY_RUNNERS = new Set(['poetry', 'uv', 'pipenv', 'pdm']);

/**
 * `cross-env A=1 jest`, `A=1 jest` and `poetry run pytest` start the program after the prefix: the
 * words from the program on.
 */
function withoutEnvSetters(words: readonly string[]): string[] {
  let at = 0;
  if (PY_RUNNERS.has(words[0] ?? '') && words[1] === 'run') at = 2;
  if (words[at] === 'cross-env' || words[at] === 'env') at++;
  while (at < words.length && ASSIGNMENT.test(words[at]!)) at++;
  if (LOCATORS.has(words[at] ?? '')) at++;
  return words.slice(at);
}

/** The argv that runs `invocation` with `extra` appended to its last command. */
export function argvOf(invocation: Invocation, extra: readonly string[]): string[] {
  if (invocation.argv) return [...invocation.argv, ...extra];
  // "$@" keeps appended arguments as words: they are never parsed by the shell again.
  return ['/bin/sh', '-c', `${invocation.script} "$@"`, 'sh', ...extra];
}

/** A command line for people to read (quotes where a word needs them). */
export function showArgv(argv: readonly string[]): string {
  if (argv[0] === '/bin/sh' && argv[1] === '-c') return [argv[2]!.replace(/ "\$@"$/, ''), ...argv.slice(4).map(quote)].join(' ');
  return argv.map(quote).join(' ');
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
