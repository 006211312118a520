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

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * Parses XML text into a synthetic root element named `#document`.
 *
 * @example
 * const doc = parseXml('<phpunit><testsuites><testsuite name="u"><directory>tests</directory></testsuite></testsuites></phpunit>');
 * xmlFind(doc, 'directory')[0]?.text; // 'tests'
 */
export function parseXml(text: string): XmlElement {
  const root: XmlElement = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  const tag = /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[([\s\S]*?)(?:\]\]>|$)|<[?!][^>]*>?|<\/\s*([^\s>]+)\s*>|<([^\s/>!?]+)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    const top = stack[stack.length - 1]!;
    top.text += decode(text.slice(last, m.index));
    last = tag.lastIndex;
    if (m[1] !== undefined) top.text += m[1];
    else if (m[2] !== undefined) {
      const name = localName(m[2]);
      // Close up to the matching open tag; a stray close tag is ignored.
      const at = stack.findLastIndex((e, i) => i > 0 && e.name === name);
      if (at > 0) stack.length = at;
    } else if (m[3] !== undefined) {
      const el: XmlElement = { name: localName(m[3]), attrs: readAttrs(m[4] ?? ''), children: [], text: '' };
      top.children.push(el);
      if (!m[5]) stack.push(el);
    }
  }
  for (const el of stack) el.text = el.text.trim();
  trimAll(root);
  return root;
}

/** All descendants (depth-first, document order) named `name`. */
export function xmlFind(from: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const visit = (el: XmlElement): void => {
    for (const child of el.children) {
      if (child.name === name) out.push(child);
      visit(child);
    }
  };
  visit(from);
  return out;
}

/** Direct children named `name`. */
export function xmlChildren(from: XmlElement | undefined, name: string): XmlElement[] {
  return from ? from.children.filter((c) => c.name === name) : [];
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
      const code = ent[1] === 'x' || ent[1] === 'X' ? Number.parseInt(ent.slice(2), 16) : Number(ent.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[ent] ?? all;
  });
}

function trimAll(el: XmlElement): void {
  el.text = el.text.trim();
  for (const child of el.children) trimAll(child);
}
