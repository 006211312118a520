import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { suite, test } from 'node:test';

const SRC = join(import.meta.dirname, '..', '..', 'src');

/**
 * Entry points of a process or a thread: their module scope is the process's (or thread's) own, made once
 * at its start, so what they keep there has an owner. Everything else keeps state in objects made by a
 * caller (`createScanCache`, `openStore`, `createEvents`, ...).
 */
const ENTRIES: Readonly<Record<string, string>> = {
  'scan/process/process.ts': 'the scan process entry: makes the cache its scans share',
  'scan/walk/helper-thread.ts': 'the helper thread entry: its queue of requests',
};

function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') ? [relative(SRC, full)] : [];
  });
}

/** `text` with the insides of template literals blanked (line breaks kept): code shipped as a string is not this module's scope. */
function withoutTemplates(text: string): string {
  let out = '';
  let inside = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && inside) { out += '  '; i++; continue; }
    if (c === '`') { inside = !inside; out += c; continue; }
    out += inside && c !== '\n' ? ' ' : c;
  }
  return out;
}

const escape = (name: string): string => name.replace(/\$/g, '\\$');

/**
 * Module-level declarations that hold state which changes after load, as `line: what`. Constants aside: a
 * Set or Map never added to, an array or object never written, a decoder. What counts:
 * - `let` / `var` at the top level;
 * - a top-level `new Map|Set` written to in the file, and any top-level Weak collection (a cache by object);
 * - a top-level array or object literal written to (push, splice, an element or member assigned);
 * - a top-level object made by a factory (`create*`, `open*`, `start*`) or a `new Worker`.
 */
export function moduleState(source: string): string[] {
  const text = withoutTemplates(source);
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    const at = `${i + 1}`;
    let m: RegExpExecArray | null;
    if ((m = /^(?:export )?(?:let|var)\s+([A-Za-z_$][\w$]*)/.exec(line))) {
      found.push(`${at}: let ${m[1]}`);
    } else if ((m = /^(?:export )?const\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*new\s+(WeakMap|WeakSet|WeakRef|Map|Set|Worker)\b/.exec(line))) {
      const [, name, kind] = m;
      const written = new RegExp(`\\b${escape(name!)}\\.(?:set|add|delete|clear)\\(`).test(text);
      if (kind!.startsWith('Weak') || kind === 'Worker' || written) found.push(`${at}: ${kind} ${name}`);
    } else if ((m = /^(?:export )?const\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:create|open|start)[A-Z]\w*\(/.exec(line))) {
      found.push(`${at}: made by a factory: ${m[1]}`);
    } else if ((m = /^(?:export )?const\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*[[{]/.exec(line))) {
      const name = escape(m[1]!);
      const written = new RegExp(`\\b${name}(?:\\.(?:push|pop|shift|unshift|splice|sort|reverse|fill)\\(|\\[[^\\]]+\\]\\s*=[^=]|\\.[A-Za-z_$][\\w$]*\\s*=[^=>])`);
      if (written.test(text)) found.push(`${at}: written ${m[1]}`);
    }
  });
  return found;
}

suite('no module-level mutable state under src/ (constants aside)', () => {
  test('no file keeps state in its module scope, but process and thread entries', () => {
    const offenders = sources().filter((file) => !(file in ENTRIES))
      .flatMap((file) => moduleState(readFileSync(join(SRC, file), 'utf8')).map((what) => `${file}:${what}`));
    assert.deepEqual(offenders, []);
  });

  test('every entry allowed still exists', () => {
    const files = new Set(sources());
    assert.deepEqual(Object.keys(ENTRIES).filter((file) => !files.has(file)), []);
  });

  test('the check names each kind of state and passes constants', () => {
    const source = [
      "let count = 0;",
      "const seen = new Set<string>();",
      "const KEYS = new Set(['a', 'b']);",
      "const cache = new WeakMap<object, number>();",
      "const queue: string[] = [];",
      "const NAMES = ['x', 'y'];",
      "const pool = createPool();",
      "const decoder = new TextDecoder();",
      "const worker = `let inside = 1;`;",
      "export function f(x: string) { seen.add(x); queue.push(x); return KEYS.has(x) && NAMES.includes(x); }",
    ].join('\n');
    assert.deepEqual(moduleState(source), ['1: let count', '2: Set seen', '4: WeakMap cache', '5: written queue', '7: made by a factory: pool']);
  });
});
