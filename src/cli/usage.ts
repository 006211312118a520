/** Edits (insert, delete, replace, swap two neighbours) between two option names, for "did you mean". */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!;
      row[j] = Math.min(
        d[i - 1]![j]! + 1,
        row[j - 1]! + 1,
        d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}

/** The known option nearest to `typed` (without dashes), when it is near enough to be a typo of it. */
export function nearestOption(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = name.startsWith(typed) && typed.length >= 2 ? 0.5 : distance(typed, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return bestDistance <= Math.max(1, Math.floor(typed.length / 3)) ? best : undefined;
}

/**
 * One sentence for a `node:util.parseArgs` failure. Its own text is written for programmers ("To specify
 * a positional argument starting with a '-' ..."); a user wants the option and what to type instead.
 */
export function parseArgsMessage(error: Error & { code?: string }, known: readonly string[]): string {
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'(-[^']*)'/.exec(error.message)?.[1] ?? '';
    const near = nearestOption(option.replace(/^-+/, '').replace(/=.*$/, ''), known);
    return `Unknown option ${option}${near ? `; did you mean --${near}?` : ''}`;
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = /'(--?[\w-]+)/.exec(error.message)?.[1];
    // "does not take an argument" (--watch=1); otherwise the value is missing or is the next option.
    if (option) {
      return /does not take an argument/.test(error.message)
        ? `${option} takes no value`
        : `${option} needs a value`;
    }
  }
  return error.message;
}
