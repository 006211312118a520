/**
 * A tiny reader for the flat YAML that `.mocharc.yml` and `pnpm-workspace.yaml` use: top-level
 * `key: scalar`, `key: [a, b]` and `key:` followed by `- item` lines. Nested mappings are skipped.
 * Enough for the discovery keys; anything fancier reads as absent.
 */
export function readFlatYaml(text: string): Record<string, string | boolean | number | string[]> {
  const out: Record<string, string | boolean | number | string[]> = Object.create(null);
  let list: string[] | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = stripComment(raw);
    if (line.trim() === '') continue;
    const item = /^\s*-\s+(.*)$/.exec(line);
    if (item && list) { list.push(scalar(item[1]!) as string); continue; }
    if (/^\s/.test(line)) continue;
    const kv = /^([\w.-]+|"[^"]*"|'[^']*')\s*:\s*(.*)$/.exec(line);
    if (!kv) { list = null; continue; }
    const key = kv[1]!.replace(/^["']|["']$/g, '');
    const rest = kv[2]!.trim();
    if (rest === '') { list = out[key] = []; continue; }
    list = null;
    out[key] = rest.startsWith('[') && rest.endsWith(']')
      ? rest.slice(1, -1).split(',').map((s) => String(scalar(s.trim()))).filter((s) => s !== '')
      : scalar(rest);
  }
  return out;
}

function stripComment(line: string): string {
  // A `#` starts a comment only at the line start or after a space, and not inside quotes.
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) { if (c === quote) quote = ''; }
    else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || line[i - 1] === ' ' || line[i - 1] === '\t')) return line.slice(0, i);
  }
  return line;
}

function scalar(s: string): string | boolean | number {
  if (/^(["']).*\1$/.test(s)) return s.slice(1, -1);
  if (s === 'true' || s === 'false') return s === 'true';
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
  return s;
}
