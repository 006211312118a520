/**
 * A tolerant INI reader in the shape Python's configparser and pytest's iniconfig accept:
 * `[section]` headers, `key = value` or `key: value`, whole-line `#`/`;` comments, and continuation
 * lines (any line indented deeper than its key continues the value). Never throws.
 */

/** Section name -> key -> raw value (continuation lines joined with `\n`). Keys are lower-cased. */
export type Ini = Map<string, Map<string, string>>;

/**
 * Parses INI text. Keys before any section header land in section `''`.
 *
 * @example
 * parseIni('[tool:pytest]\ntestpaths =\n    tests\n    integration').get('tool:pytest')?.get('testpaths');
 * // 'tests\nintegration'
 */
export function parseIni(text: string): Ini {
  const out: Ini = new Map();
  let section = new Map<string, string>();
  out.set('', section);
  let key: string | undefined;
  let keyIndent = 0;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, '');
    const trimmed = line.trimStart();
    const indent = line.length - trimmed.length;
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    if (key !== undefined && indent > keyIndent) {
      const prev = section.get(key) ?? '';
      const add = stripInlineComment(trimmed);
      section.set(key, prev === '' ? add : prev + '\n' + add);
      continue;
    }
    const header = /^\[([^\]]*)\]/.exec(trimmed);
    if (header) {
      const name = header[1]!.trim();
      section = out.get(name) ?? new Map();
      out.set(name, section);
      key = undefined;
      continue;
    }
    const m = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(trimmed);
    if (!m) { key = undefined; continue; }
    key = m[1]!.toLowerCase();
    keyIndent = indent;
    section.set(key, stripInlineComment(m[2]!));
  }
  return out;
}

/** Splits a value into whitespace-separated words across all its lines (pytest's "args"/"linelist" style). */
export function iniWords(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(/\s+/).filter(Boolean);
}

/** Splits a value into its non-empty lines. */
export function iniLines(value: string | undefined): string[] {
  return value === undefined ? [] : value.split('\n').map((l) => l.trim()).filter(Boolean);
}

// A ` #` or ` ;` after a value starts a comment (iniconfig strips these; configparser keeps them
// unless told otherwise, but no real test path or pattern contains one).
function stripInlineComment(value: string): string {
  const m = /\s[#;]/.exec(value);
  return (m ? value.slice(0, m.index) : value).trim();
}
