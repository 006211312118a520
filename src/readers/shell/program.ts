/**
 * A `sh` script read as a program, statically: which simple commands run when every variable is unset
 * (as in a plain `npm test`). Lists (`&&`, `||`, `;`, `|`, `&`, newlines), subshells and `{ ...; }`
 * groups, `if/elif/else/fi` (the branch whose condition holds with the variables unset, when the
 * condition is a `test`/`[ ]` the reader can decide; both branches otherwise), `case` (the arm the
 * unset word matches), loops (their body once). `$VAR`, `${VAR}`, `${VAR:-default}` expand against
 * assignments seen so far, else to nothing. Bounded: input size, word count and nesting.
 */

import { decide, globMatch, joinDir, split, type Word } from './words.ts';

/** One simple command that runs, with its words after expansion. */
export interface ProgramCommand {
  readonly argv: readonly string[];
  readonly quoted: readonly boolean[];
  /** `NAME=value` prefixes of this command. */
  readonly env: ReadonlyArray<readonly [string, string]>;
  /** Directory it runs in, relative to where the script started (`cd x && ...`); `''` when unchanged. */
  readonly cwd: string;
}

export interface Program {
  readonly commands: ProgramCommand[];
  /** Conditions decided, branches taken, limits hit: in words. */
  readonly notes: string[];
}

export interface ProgramOptions {
  readonly maxBytes?: number;
  readonly maxWords?: number;
  readonly maxDepth?: number;
  /** Decides file tests (`-f`, `-d`, `-e` and a path); undefined when it cannot tell. */
  readonly fileTest?: (op: string, path: string) => boolean | undefined;
  /** Positional parameters (`$1`, `"$@"`, `$*`) of a script file run with arguments; none by default. */
  readonly args?: readonly string[];
  readonly argsQuoted?: readonly boolean[];
}


/**
 * Reads a script as a program.
 *
 * @example
 * readProgram('if [ -n "$CI" ]; then jest --ci; else jest --watch=false; fi').commands[0].argv;
 * // ['jest', '--watch=false']
 */
export function readProgram(script: string, options: ProgramOptions = {}): Program {
  const notes: string[] = [];
  const maxBytes = options.maxBytes ?? 64 * 1024;
  if (script.length > maxBytes) {
    return { commands: [], notes: [`the command is longer than ${maxBytes} bytes; not read`] };
  }
  const words = split(script, options.maxWords ?? 20_000);
  if (words === null) {
    return { commands: [], notes: ['the command has more words than projdex reads; not read'] };
  }
  const vars = new Map<string, string>();
  const commands: ProgramCommand[] = [];
  const maxDepth = options.maxDepth ?? 40;
  let pos = 0;
  let cwd = '';
  const peek = (): Word | undefined => words[pos];
  const isKw = (w: Word | undefined, ...k: string[]): boolean =>
    !!w && !w.op && !w.quoted && k.includes(w.text);

  /** Reads commands until one of `stops` (a keyword at command start) or `)`; `run` false reads dry. */
  const list = (stops: string[], run: boolean, depth: number): void => {
    if (depth > maxDepth) {
      notes.push('the command nests deeper than projdex reads');
      pos = words.length;
      return;
    }
    while (pos < words.length) {
      const w = peek()!;
      if ((w.op === ')' && depth > 0) || (w.op === ';;' && stops.includes(';;'))) return;
      if (w.op === '(') { pos++; const saved = cwd; list([], run, depth + 1); cwd = saved; pos++; continue; }
      if (w.op) { pos++; continue; }
      if (isKw(w, ...stops)) return;
      if (isKw(w, 'if')) { pos++; ifClause(run, depth); continue; }
      if (isKw(w, 'case')) { pos++; caseClause(run, depth); continue; }
      if (isKw(w, 'for', 'while', 'until')) { loop(run, depth); continue; }
      if (isKw(w, '{')) { pos++; list(['}'], run, depth + 1); pos++; continue; }
      simple(run);
    }
  };

  const simple = (run: boolean): void => {
    const argv: string[] = [];
    const quoted: boolean[] = [];
    const env: Array<[string, string]> = [];
    const raw: string[] = [];
    while (pos < words.length && !peek()!.op) {
      const w = words[pos++]!;
      // Redirections: `> out.log`, `2>/dev/null`, `&>x`: neither the operator nor its target is an argument.
      if (!w.quoted && /^(\d*|&)[<>]/.test(w.text)) {
        if (/^(\d*|&)[<>]+&?$/.test(w.text) && pos < words.length && !peek()!.op) pos++;
        continue;
      }
      const assign = !w.quoted || /^[A-Za-z_]\w*=/.test(w.text)
        ? /^([A-Za-z_]\w*)=([\s\S]*)$/.exec(w.text)
        : null;
      if (argv.length === 0 && assign && !w.text.startsWith('=')) {
        env.push([assign[1]!, expand(w).slice(assign[1]!.length + 1)]);
        continue;
      }
      if (/^\$[@*]$|^\$\{[@*]\}$/.test(w.text) && (w.dollars?.includes(0) ?? true)) {
        // `"$@"` is each argument as its own word.
        argv.push(...params);
        quoted.push(...params.map((_, i) => options.argsQuoted?.[i] ?? false));
        raw.push(...params.map(() => w.text));
        continue;
      }
      // `"${args[@]}"` of an array projdex never saw set is no word at all, quoted or not.
      if (/^\$\{[A-Za-z_]\w*\[[@*]\]\}$/.test(w.text)) continue;
      // `NAME=(a b)`, `NAME+=(...)`: a bash array assignment, its words no command.
      if (argv.length === 0 && !w.quoted && /^[A-Za-z_]\w*\+?=$/.test(w.text) && peek()?.op === '(') {
        while (pos < words.length && peek()!.op !== ')') pos++;
        pos++;
        continue;
      }
      // `NAME+=x`: an assignment bash appends, not a command.
      if (argv.length === 0 && !w.quoted && /^[A-Za-z_]\w*\+=/.test(w.text)) {
        while (pos < words.length && !peek()!.op) pos++;
        continue;
      }
      const text = expand(w);
      if (text === '' && !w.quoted && /\$/.test(w.text)) continue;
      argv.push(text); quoted.push(w.quoted); raw.push(w.text);
    }
    if (!run) return;
    if (argv.length === 0) { for (const [k, v] of env) vars.set(k, v); return; }
    if (argv[0] === 'cd') {
      // `cd "$DIR/.."`, `cd "$(git rev-parse --show-toplevel)"`: scripts mostly go back to the project.
      const to = argv[1] ?? '';
      const known = [...(raw[1] ?? '').matchAll(/\$\{?(\w+)|\$\(|`/g)]
        .every((m) => m[1] !== undefined && vars.has(m[1]));
      if (to !== '' && !/^[/~]/.test(to) && known) cwd = joinDir(cwd, to);
      else {
        notes.push(`\`cd ${raw[1] ?? ''}\` goes where projdex cannot tell; `
          + 'assumed it stays in the same directory');
      }
      return;
    }
    if (argv[0] === 'export') {
      for (const a of argv.slice(1)) {
        const m = /^([A-Za-z_]\w*)=(.*)$/.exec(a);
        if (m) vars.set(m[1]!, m[2]!);
      }
    }
    commands.push({ argv, quoted, env, cwd });
  };

  const params = options.args ?? [];
  const param = (name: string): string | undefined => (
    /^\d$/.test(name) ? (name === '0' ? undefined : params[Number(name) - 1] ?? '')
      : name === '#' ? String(params.length)
        : name === '@' || name === '*' ? params.join(' ')
          : undefined);
  /**
   * A word with its `$VAR`, `${VAR}`, `${VAR:-d}` expanded; a `$` that `sh` leaves alone (`'$X'`, `\$X`)
   * stays.
   */
  const expand = (w: Word | string): string => {
    const { text, dollars } = typeof w === 'string' ? { text: w, dollars: undefined } : w;
    const re = /\$\{([A-Za-z_]\w*|\d|[@*#])(?::?[-=]([^}]*))?\}|\$([A-Za-z_]\w*|\d|[@*#])/g;
    return text.replace(re, (
      m,
      a: string | undefined,
      dflt: string | undefined,
      b: string | undefined,
      at: number,
    ) => {
      if (dollars !== undefined && !dollars.includes(at)) return m;
      const v = param((a ?? b)!) ?? vars.get((a ?? b)!);
      return v !== undefined && v !== '' ? v : dflt ?? '';
    });
  };

  const ifClause = (run: boolean, depth: number): void => {
    const from = pos;
    const cond = condition(['then']);
    const text = words.slice(from, pos).filter((w) => !w.op).map((w) => w.text).join(' ');
    pos++; // then
    let taken = false;
    const branch = (decided: boolean | undefined): void => {
      const go = run && !taken && decided !== false;
      list(['elif', 'else', 'fi'], go, depth + 1);
      if (decided === true) taken = true;
    };
    if (run) {
      notes.push(cond === undefined
        ? `could not decide \`if ${text}\`; followed every branch`
        : `\`if ${text}\` is ${cond} with the variables unset`);
    }
    branch(cond);
    while (isKw(peek(), 'elif')) {
      pos++;
      const c = condition(['then']);
      pos++;
      branch(c);
    }
    if (isKw(peek(), 'else')) { pos++; list(['fi'], run && !taken, depth + 1); }
    if (isKw(peek(), 'fi')) pos++;
  };

  /** Reads a condition up to a keyword; its truth when every word is known, else undefined. */
  const condition = (stops: string[]): boolean | undefined => {
    const parts: Word[] = [];
    while (pos < words.length && !isKw(peek(), ...stops)) {
      const w = words[pos++]!;
      if (!w.op) parts.push(w);
    }
    // An unquoted variable that expands to nothing is no word at all: `[ -e $TRAVIS ]` is `[ -e ]`.
    const expanded = parts
      .map((w) => ({ ...w, text: expand(w) }))
      .filter((w, i) => w.quoted || w.text !== '' || !parts[i]!.text.includes('$'));
    return decide(expanded, options.fileTest);
  };

  const caseClause = (run: boolean, depth: number): void => {
    const first = words[pos++];
    const subject = first ? expand(first) : '';
    if (isKw(peek(), 'in')) pos++;
    let matched = false;
    while (pos < words.length && !isKw(peek(), 'esac')) {
      if (peek()!.op) { pos++; continue; }
      const patterns: string[] = [];
      while (pos < words.length && peek()!.op !== ')') {
        const w = words[pos++]!;
        if (!w.op && w.text !== '|') patterns.push(...expand(w).split('|').filter(Boolean));
      }
      pos++;
      const hit = !matched && patterns.some((p) => globMatch(p, subject));
      if (hit && run) {
        notes.push(`\`case ${subject === '' ? '""' : subject}\` took the \`${patterns.join('|')}\` arm `
          + 'with the variables unset');
      }
      list(['esac', ';;'], run && hit, depth + 1);
      if (hit) matched = true;
      if (peek()?.op === ';;') pos++;
    }
    pos++;
  };

  const loop = (run: boolean, depth: number): void => {
    while (pos < words.length && !isKw(peek(), 'do')) pos++;
    pos++;
    if (run) notes.push('a loop body was read once');
    list(['done'], run, depth + 1);
    pos++;
  };

  list([], true, 0);
  return { commands, notes };
}

