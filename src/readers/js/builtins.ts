/**
 * What the static evaluator knows of Node and of the config helpers real configs call: `path.*`,
 * `fileURLToPath`, `URL`, `process.env` (always unset, as in a plain `npm test`, and noted),
 * `process.cwd()`, `Object.assign`, `defineConfig`-style identity helpers, Vite's `mergeConfig`,
 * and the array/string methods configs use on literal lists (`.filter(Boolean)`, `.map`, `.concat`).
 */

import { notePattern, projectRegExp } from '../safe-regex.ts';
import { isComputed, isObject, isRegex, type Lit } from './lit.ts';
import { isFn, mergeDeep, native, truthy, unknown, type FnVal, type Obj, type Val } from './values.ts';

/** Absolute POSIX path helpers (the evaluator only ever sees `/`-separated absolute paths). */
export function normalize(p: string): string {
  const abs = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!abs) out.push('..');
    }
    else out.push(seg);
  }
  const s = (abs ? '/' : '') + out.join('/');
  return s === '' ? '.' : s;
}
export const dirOf = (p: string): string => {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
};

const strs = (args: Val[]): string[] | undefined =>
  args.every((a) => typeof a === 'string') ? (args as string[]) : undefined;

/** The `path` module, resolving against `cwd` (the package directory, where `npm test` runs). */
export function pathModule(cwd: string): Obj {
  const resolve = (parts: string[]): string => {
    let acc = cwd;
    for (const p of parts) acc = p.startsWith('/') ? p : acc + '/' + p;
    return normalize(acc);
  };
  const fns: Record<string, (a: string[]) => Val> = {
    resolve,
    join: (a) => normalize(a.filter((x) => x !== '').join('/')),
    dirname: (a) => dirOf(a[0] ?? ''),
    basename: (a) => {
      const b = (a[0] ?? '').replace(/\/+$/, '');
      const n = b.slice(b.lastIndexOf('/') + 1);
      return a[1] && n.endsWith(a[1]) ? n.slice(0, -a[1].length) : n;
    },
    extname: (a) => /(\.[^./]*)$/.exec(a[0] ?? '')?.[1] ?? '',
    normalize: (a) => normalize(a[0] ?? ''),
    relative: (a) => relative(resolve([a[0] ?? '']), resolve([a[1] ?? ''])),
    isAbsolute: (a) => (a[0] ?? '').startsWith('/'),
  };
  const out: Obj = Object.create(null);
  for (const [name, f] of Object.entries(fns)) {
    out[name] = native(`path.${name}`, (args, text) => {
      const s = strs(args);
      return s ? f(s) : unknown(text);
    });
  }
  out.sep = '/';
  out.delimiter = ':';
  out.posix = out;
  return out;
}

function relative(from: string, to: string): string {
  const a = from.split('/').filter(Boolean);
  const b = to.split('/').filter(Boolean);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => '..'), ...b.slice(i)].join('/');
}

const fileUrlToPath = native('fileURLToPath', (args, text) => {
  const u = args[0];
  if (typeof u === 'string' && u.startsWith('file://')) {
    return decodeURIComponent(u.slice('file://'.length)).replace(/(.)\/$/, '$1');
  }
  return unknown(text);
});

/** `new URL(rel, base)` for `file:` bases: the resolved URL string. */
export const urlCtor = native('URL', (args, text) => {
  const [rel, base] = args;
  if (typeof rel !== 'string') return unknown(text);
  if (base === undefined) return rel;
  if (typeof base !== 'string' || !base.startsWith('file://')) return unknown(text);
  const dir = base.endsWith('/') ? base.slice(7) : dirOf(base.slice(7)) + '/';
  const out = normalize(rel.startsWith('/') ? rel : dir + rel);
  return 'file://' + out + (rel.endsWith('/') || rel === '.' ? '/' : '');
});

/** Modules whose exports the evaluator knows; any other package import is unknown (and noted). */
export function builtinModule(spec: string, cwd: string): Obj | undefined {
  const name = spec.replace(/^node:/, '');
  if (name === 'path' || name === 'path/posix') { const p = pathModule(cwd); return withDefault(p); }
  if (name === 'url') {
    return withDefault({
      fileURLToPath: fileUrlToPath,
      URL: urlCtor,
      pathToFileURL: native('pathToFileURL', (a, t) => (
        typeof a[0] === 'string' ? 'file://' + a[0] : unknown(t))),
    });
  }
  return undefined;
}

function withDefault(o: Obj): Obj {
  return Object.assign(Object.create(null), o, { default: o });
}

/** `defineConfig(x)`, `defineProject(x)`, `defineWorkspace(x)`: identity; with a function, it is called. */
export const identityHelper = (name: string, call: (f: FnVal, args: Val[], text: string) => Val): FnVal =>
  native(name, (args, text) => {
    const a = args[0];
    if (isFn(a)) return call(a, [{ mode: 'test', command: 'serve' }], text);
    return a === undefined ? unknown(text) : a;
  });

/** Vite/Vitest `mergeConfig(a, b)` (deep, arrays concatenated), also lodash-style `merge`. */
export const mergeConfig = native('mergeConfig', (args, text) => {
  if (args.some((a) => isComputed(a) && !isObject(a))) {
    const known = args.filter(isObject);
    if (known.length === 0) return unknown(text);
    const merged = known.reduce<Val>((acc, x) => mergeDeep(acc, x), Object.create(null)) as Obj;
    return Object.assign(merged, { '...merged': unknown(text) });
  }
  return args.reduce<Val>((acc, x) => mergeDeep(acc, x), undefined);
});

/** `Object.assign(target, ...sources)` and `Object.keys/values/entries`, on known objects. */
export const objectStatics: Obj = {
  assign: native('Object.assign', (args, text) => {
    const out: Obj = Object.create(null);
    let n = 0;
    for (const a of args) {
      if (isObject(a)) Object.assign(out, a);
      else if (isComputed(a)) out[`...${n++}`] = unknown(text);
    }
    return out;
  }),
  keys: native('Object.keys', (a, t) => (
    isObject(a[0]) ? Object.keys(a[0]).filter((k) => !k.startsWith('...')) : unknown(t))),
  values: native('Object.values', (a, t) => (isObject(a[0]) ? Object.values(a[0]) : unknown(t))),
  entries: native('Object.entries', (a, t) => (isObject(a[0]) ? Object.entries(a[0]) : unknown(t))),
};

/** A method of a known array or string (`list.filter(Boolean)`), or undefined when not modelled. */
export function method(
  target: Val,
  name: string,
  call: (f: FnVal, args: Val[], text: string) => Val,
): FnVal | undefined {
  if (Array.isArray(target)) {
    const arr = target as Lit[];
    switch (name) {
      case 'filter': return native('filter', (args, text) => {
        const fn = args[0];
        if (!isFn(fn)) return unknown(text);
        const out: Lit[] = [];
        for (const x of arr) {
          const t = truthy(call(fn, [x], text));
          if (t === undefined) return unknown(text);
          if (t) out.push(x);
        }
        return out;
      });
      case 'map': return native('map', (args, text) => {
        const fn = args[0];
        if (!isFn(fn)) return unknown(text);
        return arr.map((x, i) => (call(fn, [x, i], text) ?? null) as Lit);
      });
      case 'concat':
        return native('concat', (args) =>
          arr.concat(...args.map((a) => (Array.isArray(a) ? a : [(a ?? null) as Lit]))));
      case 'flat': return native('flat', () => arr.flatMap((x) => (Array.isArray(x) ? x : [x])));
      case 'slice':
        return native('slice', (a) => arr.slice(a[0] as number | undefined, a[1] as number | undefined));
      case 'join':
        return native('join', (a, t) => (arr.every((x) => typeof x === 'string' || typeof x === 'number')
          ? arr.join(typeof a[0] === 'string' ? a[0] : ',')
          : unknown(t)));
      case 'includes': return native('includes', (a) => arr.includes(a[0] as Lit));
      // Configs build lists with `list.push(...)` before exporting them: the known list grows in place.
      case 'push': case 'unshift': return native(name, (a) => {
        const items = a.map((x) => (x ?? null) as Lit);
        if (name === 'push') arr.push(...items); else arr.unshift(...items);
        return arr.length;
      });
    }
  }
  if (typeof target === 'string') {
    const s = target;
    switch (name) {
      case 'replace': case 'replaceAll': return native(name, (a, t) => {
        const [p, r] = a;
        if (typeof r !== 'string') return unknown(t);
        if (typeof p === 'string') {
          return name === 'replace' ? s.replace(p, () => r) : s.replaceAll(p, () => r);
        }
        if (isRegex(p)) {
          // A config's regex runs on config strings only, but may backtrack for minutes all the same.
          const refused = (why: string): void =>
            notePattern(`regex ${JSON.stringify(p.regex.slice(0, 80))} in a config is not used: ${why}`);
          const re = projectRegExp(p.regex, p.flags, refused);
          return re ? s.replace(re, r) : unknown(t);
        }
        return unknown(t);
      });
      case 'split': return native('split', (a, t) => (typeof a[0] === 'string' ? s.split(a[0]) : unknown(t)));
      case 'startsWith': case 'endsWith': case 'includes':
        return native(name, (a, t) => (typeof a[0] === 'string' ? s[name](a[0]) : unknown(t)));
      case 'trim': return native('trim', () => s.trim());
      case 'concat':
        return native('concat', (a, t) => (
          a.every((x) => typeof x === 'string') ? s.concat(...(a as string[])) : unknown(t)));
    }
  }
  return undefined;
}
