/**
 * Just enough XML for S3: writing answers (escaped text, S3's namespace on the root) and reading
 * the few request documents S3 takes (Delete, CompleteMultipartUpload, VersioningConfiguration,
 * CreateBucketConfiguration). The reader is strict: anything it cannot parse is MalformedXML,
 * as S3 answers, rather than a guess.
 */
import { malformedXml } from './errors';

export const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** An element of an answer: name and either text or child elements (undefined children are left out). */
export type XmlNode = { name: string; text?: string; children?: Array<XmlNode | undefined> };

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const escapeText = (text: string): string => text.replace(/[&<>"']/g, (c) => escapes[c] ?? c);

export const el = (name: string, text: string | number | boolean): XmlNode => ({ name, text: String(text) });
export const parent = (name: string, children: Array<XmlNode | undefined>): XmlNode => ({ name, children });
/** An element only when there is a value: S3 leaves out empty optional elements. */
export const opt = (name: string, text: string | number | undefined): XmlNode | undefined =>
  text === undefined ? undefined : el(name, text);

function write(node: XmlNode, root: boolean): string {
  const attributes = root ? ` xmlns="${S3_NAMESPACE}"` : '';
  if (node.text !== undefined) return `<${node.name}${attributes}>${escapeText(node.text)}</${node.name}>`;
  const inner = (node.children ?? []).map((child) => (child === undefined ? '' : write(child, false))).join('');
  return inner === '' ? `<${node.name}${attributes}/>` : `<${node.name}${attributes}>${inner}</${node.name}>`;
}

export function xmlDocument(root: XmlNode): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${write(root, true)}`;
}

/** An element read from a request: its local name (prefix dropped), its text, its child elements. */
export interface ParsedElement {
  name: string;
  text: string;
  children: ParsedElement[];
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (_whole, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    const known = entities[name];
    if (known === undefined) throw malformedXml();
    return known;
  });
}

const TAG = /<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[\w.:-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/y;

/** Parses a request document; throws MalformedXML for anything that is not well-formed. */
export function parseXml(source: string): ParsedElement {
  let at = 0;
  const skipProlog = () => {
    for (;;) {
      const rest = source.slice(at);
      const space = rest.match(/^\s+/);
      if (space) at += space[0].length;
      if (source.startsWith('<?', at) || source.startsWith('<!--', at)) {
        const end = source.indexOf(source.startsWith('<?', at) ? '?>' : '-->', at);
        if (end < 0) throw malformedXml();
        at = end + (source.startsWith('<?', at) ? 2 : 3);
        continue;
      }
      return;
    }
  };
  skipProlog();
  const stack: ParsedElement[] = [];
  let root: ParsedElement | undefined;
  while (at < source.length) {
    if (root !== undefined && stack.length === 0) {
      skipProlog();
      if (at < source.length) throw malformedXml();
      break;
    }
    if (source.startsWith('<!--', at)) {
      const end = source.indexOf('-->', at);
      if (end < 0) throw malformedXml();
      at = end + 3;
      continue;
    }
    if (source[at] !== '<') {
      const end = source.indexOf('<', at);
      if (end < 0 || stack.length === 0) throw malformedXml();
      const top = stack[stack.length - 1];
      if (top !== undefined) top.text += unescapeText(source.slice(at, end));
      at = end;
      continue;
    }
    TAG.lastIndex = at;
    const tag = TAG.exec(source);
    if (tag === null) throw malformedXml();
    at = TAG.lastIndex;
    const [, closing, qualified = '', , selfClosing] = tag;
    const name = qualified.includes(':') ? qualified.slice(qualified.indexOf(':') + 1) : qualified;
    if (closing === '/') {
      const open = stack.pop();
      if (open === undefined || open.name !== name || selfClosing === '/') throw malformedXml();
      continue;
    }
    const element: ParsedElement = { name, text: '', children: [] };
    const top = stack[stack.length - 1];
    if (top !== undefined) top.children.push(element);
    else if (root === undefined) root = element;
    else throw malformedXml();
    if (selfClosing !== '/') stack.push(element);
  }
  if (root === undefined || stack.length > 0) throw malformedXml();
  return root;
}

export const childrenNamed = (element: ParsedElement, name: string): ParsedElement[] =>
  element.children.filter((child) => child.name === name);

export const childText = (element: ParsedElement, name: string): string | undefined =>
  childrenNamed(element, name)[0]?.text;
