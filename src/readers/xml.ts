/**
 * A tolerant, tiny XML reader for build configs (phpunit.xml, pom.xml): elements, attributes and
 * text. Comments, CDATA, processing instructions and doctypes are skipped; namespaces are kept as
 * written in the tag name's local part. Unbalanced tags are closed leniently. Never throws.
 */

export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** Concatenated direct text content, entities decoded, trimmed. */
  text: string;
}

import { MAX_DEPTH, noteLimit } from './budget.ts';

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * Parses XML text into a synthetic root element named `#document`.
 *
 * @example
 * const doc = parseXml(
 *   '<phpunit><testsuites><testsuite name="u"><directory>tests</directory></testsuite></testsuites></phpunit>',
 * );
 * xmlFind(doc, 'directory')[0]?.text; // 'tests'
 */
export function parseXml(text: string): XmlElement {
  const root: XmlElement = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  let last = 0;
  let deep = false;
  // A hand-written scanner rather than one RegExp: each stretch of text is looked at a bounded number of
  // times, so a file of `<a<a<a...` or unclosed quotes costs linear time.
  for (const m of tags(text)) {
    const top = stack[stack.length - 1]!;
    top.text += decode(text.slice(last, m.at));
    last = m.end;
    if (m.kind === 'cdata') top.text += m.text;
    else if (m.kind === 'close') {
      const name = localName(m.name);
      // Close up to the matching open tag; a stray close tag is ignored.
      const at = stack.findLastIndex((e, i) => i > 0 && e.name === name);
      if (at > 0) stack.length = at;
    } else if (m.kind === 'open') {
      const el: XmlElement = { name: localName(m.name), attrs: readAttrs(m.attrs), children: [], text: '' };
      const full = stack.length > MAX_DEPTH;
      // Deeper than any real build file: the tree stops growing downwards (the new element becomes the
      // top's sibling and takes its place, so its text is still read), and the scan says so once.
      (full ? stack[stack.length - 2]! : top).children.push(el);
      if (m.selfClosing) continue;
      if (!full) stack.push(el);
      else {
        stack[stack.length - 1] = el;
        if (!deep) noteLimit(`an XML file nests deeper than ${MAX_DEPTH} elements; the rest was read flat`);
        deep = true;
      }
    }
  }
  for (const el of stack) el.text = el.text.trim();
  trimAll(root);
  return root;
}

/** All descendants (depth-first, document order) named `name`. */
export function xmlFind(from: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  // An explicit stack (children pushed in reverse) keeps document order without recursion.
  const pending = [...from.children].reverse();
  for (let el = pending.pop(); el; el = pending.pop()) {
    if (el.name === name) out.push(el);
    for (let i = el.children.length - 1; i >= 0; i--) pending.push(el.children[i]!);
  }
  return out;
}

/** Direct children named `name`. */
export function xmlChildren(from: XmlElement | undefined, name: string): XmlElement[] {
  return from ? from.children.filter((c) => c.name === name) : [];
}

type Tag =
  | { kind: 'skip' | 'cdata'; at: number; end: number; text: string }
  | { kind: 'close'; at: number; end: number; name: string }
  | { kind: 'open'; at: number; end: number; name: string; attrs: string; selfClosing: boolean };

/** The markup of `text` in order: comments, PIs and doctypes (skipped), CDATA, close and open tags. */
function* tags(text: string): Generator<Tag> {
  const len = text.length;
  for (let i = text.indexOf('<'); i !== -1 && i < len; i = text.indexOf('<', i)) {
    const endOf = (marker: string, from: number): number => {
      const e = text.indexOf(marker, from);
      return e === -1 ? len : e + marker.length;
    };
    if (text.startsWith('<!--', i)) {
      const end = endOf('-->', i + 4);
      yield { kind: 'skip', at: i, end, text: '' };
      i = end;
      continue;
    }
    if (text.startsWith('<![CDATA[', i)) {
      const close = text.indexOf(']]>', i + 9);
      const end = close === -1 ? len : close + 3;
      yield { kind: 'cdata', at: i, end, text: text.slice(i + 9, close === -1 ? len : close) };
      i = end;
      continue;
    }
    if (text[i + 1] === '?' || text[i + 1] === '!') {
      const end = endOf('>', i);
      yield { kind: 'skip', at: i, end, text: '' };
      i = end;
      continue;
    }
    // A tag ends at the first `>` outside quotes and before the next `<` (which XML forbids inside tags).
    const next = text.indexOf('<', i + 1);
    const limit = next === -1 ? len : next;
    let gt = -1;
    for (let j = i + 1; j < limit; j++) {
      const c = text[j];
      if (c === '"' || c === "'") {
        const q = text.indexOf(c, j + 1);
        if (q === -1 || q >= limit) break;
        j = q;
      } else if (c === '>') {
        gt = j;
        break;
      }
    }
    if (gt === -1) { i = limit; continue; }
    const inner = text.slice(i + 1, gt);
    if (inner.startsWith('/')) {
      const name = inner.slice(1).trim();
      if (name !== '' && !/\s/.test(name)) yield { kind: 'close', at: i, end: gt + 1, name };
    } else {
      const nameEnd = inner.search(/[\s/]|$/);
      const name = inner.slice(0, nameEnd);
      const selfClosing = inner.endsWith('/');
      if (name !== '') {
        yield {
          kind: 'open',
          at: i,
          end: gt + 1,
          name,
          attrs: inner.slice(nameEnd, selfClosing ? -1 : undefined),
          selfClosing,
        };
      }
    }
    i = gt + 1;
  }
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

function readAttrs(src: string): Record<string, string> {
  const attrs: Record<string, string> = Object.create(null);
  for (const m of src.matchAll(/([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
    attrs[localName(m[1]!)] = decode(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return attrs;
}

function decode(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, ent: string) => {
    if (ent[0] === '#') {
      const code = ent[1] === 'x' || ent[1] === 'X'
        ? Number.parseInt(ent.slice(2), 16)
        : Number(ent.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[ent] ?? all;
  });
}

function trimAll(root: XmlElement): void {
  const pending = [root];
  for (let el = pending.pop(); el; el = pending.pop()) {
    el.text = el.text.trim();
    for (const child of el.children) pending.push(child);
  }
}
