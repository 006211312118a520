/** What one pytest command line (addopts first, then the command's own words) says about collection. */
export interface PytestArgs {
  /** Positional paths or node ids (`tests/unit`, `tests/test_a.py::test_x`), as written. */
  readonly paths: string[];
  readonly ignore: string[];
  readonly ignoreGlob: string[];
  readonly deselect: string[];
  readonly rootdir?: string;
  /** `-c`/`--config-file`/`--inifile`. */
  readonly configFile?: string;
  readonly doctestModules: boolean;
  /** `--doctest-glob` values (none: pytest's default `test*.txt`). */
  readonly doctestGlobs: string[];
  /** `--pyargs`: positional words are module names, which projdex does not resolve. */
  readonly pyargs: boolean;
}

// Options that take a value as the next word (so that value is not a path to collect). `--cov` takes
// an optional one, which argparse consumes when the next word is not an option.
const WITH_VALUE = new Set([
  '-k', '-m', '-p', '-c', '-o', '-W', '-n', '-r', '--config-file', '--inifile', '--rootdir', '--ignore', '--ignore-glob',
  '--deselect', '--doctest-glob', '--cov', '--cov-report', '--cov-config', '--cov-fail-under', '--junitxml',
  '--junit-xml', '--basetemp', '--confcutdir', '--maxfail', '--tb', '--dist', '--timeout', '--log-level',
  '--log-file', '--durations', '--reruns', '--import-mode', '--color', '--capture', '--override-ini',
  '--junit-prefix', '--html', '--benchmark-json', '--randomly-seed', '--maxprocesses', '--log-cli-level',
  '--doctest-report', '--report-log', '--json-report-file', '--alluredir', '--splits', '--group',
]);

/**
 * Reads pytest's words: the collection options and the positional paths. `{posargs}`-style
 * placeholders and unknown options are skipped.
 *
 * @example
 * parsePytestArgs(['--ignore=tests/slow', '-p', 'no:cacheprovider', 'tests']);
 * // { paths: ['tests'], ignore: ['tests/slow'], ... }
 */
export function parsePytestArgs(words: readonly string[]): PytestArgs {
  const out = {
    paths: [] as string[], ignore: [] as string[], ignoreGlob: [] as string[], deselect: [] as string[],
    doctestGlobs: [] as string[], doctestModules: false, pyargs: false,
    rootdir: undefined as string | undefined, configFile: undefined as string | undefined,
  };
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word.includes('{') || word === '') continue;
    if (!word.startsWith('-')) { out.paths.push(word); continue; }
    if (word === '--doctest-modules') { out.doctestModules = true; continue; }
    if (word === '--pyargs') { out.pyargs = true; continue; }
    const eq = /^(--[\w-]+)=(.*)$/s.exec(word);
    // `-cfile`, `-kexpr`: a short option glued to its value.
    const glued = !eq && /^-[ckmpoWnr]./.test(word) && !word.startsWith('--') ? [word.slice(0, 2), word.slice(2)] : undefined;
    const flag = eq?.[1] ?? glued?.[0] ?? word;
    if (!WITH_VALUE.has(flag)) continue;
    let value = eq?.[2] ?? glued?.[1];
    if (value === undefined) {
      const next = words[i + 1];
      if (flag === '--cov' && (next === undefined || next.startsWith('-'))) continue;
      if (flag === '-r' && next !== undefined && !/^[sxXfEpPaAN]+$/.test(next)) continue;
      value = next;
      i++;
    }
    if (value === undefined) continue;
    if (flag === '--ignore') out.ignore.push(value);
    else if (flag === '--ignore-glob') out.ignoreGlob.push(value);
    else if (flag === '--deselect') out.deselect.push(value);
    else if (flag === '--doctest-glob') out.doctestGlobs.push(value);
    else if (flag === '--rootdir') out.rootdir = value;
    else if (flag === '-c' || flag === '--config-file' || flag === '--inifile') out.configFile = value;
  }
  return out;
}
