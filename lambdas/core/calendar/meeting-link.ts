/**
 * The meeting link of a calendar occurrence: looked for in conference data, then
 * URL, LOCATION and DESCRIPTION (its HTML form first), and the first link the
 * service takes wins, in the form the service stores it (upstream/meeting-url.ts),
 * so the same meeting in two calendars has one link.
 */
import { normalizeMeetingUrl } from '../upstream/meeting-url';
import type { LinkFields } from './ics-occurrences';

export type LinkSource = 'conference' | 'url' | 'location' | 'description';

export type FoundLink =
  | { found: true; url: string; source: LinkSource; kind: MeetingKind }
  | { found: false; reason: string };

export type MeetingKind = 'zoom' | 'google-meet' | 'teams';

/** Hosts of meeting links, by kind: Zoom on any subdomain and its government cloud, Meet, Teams (government clouds too). */
const MEETING_HOSTS: ReadonlyArray<{ kind: MeetingKind; matches: (host: string) => boolean }> = [
  { kind: 'zoom', matches: (host) => /(^|\.)(zoom\.us|zoom\.com|zoomgov\.com)$/.test(host) },
  { kind: 'google-meet', matches: (host) => host === 'meet.google.com' },
  {
    kind: 'teams',
    matches: (host) => /^(teams\.microsoft\.com|teams\.live\.com|(gov|dod)\.teams\.microsoft\.us)$/.test(host),
  },
];

const LINK = /https?:\/\/[^\s<>"'()[\]{}]+(?:\{[^\s<>'}]*\}[^\s<>"']*)?/g;

/** Outlook's Safe Links wrap the real link in `url=`. */
function unwrapSafeLink(link: string): string {
  try {
    const url = new URL(link);
    if (url.hostname.endsWith('safelinks.protection.outlook.com')) return url.searchParams.get('url') ?? link;
  } catch {
    // not a URL: left as found
  }
  return link;
}

/**
 * How much of each field is searched for a link. The invite's author writes these
 * fields; a Teams invite's HTML description is a few KB, the link near its start.
 */
export const MAX_LINK_FIELD_CHARS = 64 * 1024;

/** Links tried per field: an invite has a handful; each one tried costs a URL parse. */
const MAX_LINKS_PER_FIELD = 100;

/** A real tag (`<br>`, `</a>`), not a link in angle brackets as Outlook writes them (`<https://…>`). */
const HTML_TAG = /^<\/?[a-z][a-z0-9]*(?:\s[^>]*)?\/?>$/i;
/** Tags longer than this are read as tags without a link (no real anchor is). */
const MAX_TAG_CHARS = 4_096;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function entityText(entity: string, name: string): string {
  const code =
    name.startsWith('#x') || name.startsWith('#X') ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
  if (!name.startsWith('#')) return ENTITIES[name.toLowerCase()] ?? entity;
  return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
}

/**
 * HTML as the text a reader sees, with every href kept in front of its anchor's
 * text. One pass: each `<` is matched with the next `>` (found once for all the
 * `<` before it), so text full of `<` costs no more than plain text.
 */
function htmlText(html: string): string {
  const out: string[] = [];
  let at = 0;
  let close = -1;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open < 0) break;
    if (close < open) close = html.indexOf('>', open);
    if (close < 0) break;
    out.push(html.slice(at, open));
    const tag = html.slice(open, close + 1);
    if (tag.length <= MAX_TAG_CHARS && HTML_TAG.test(tag)) {
      const href = /^<a\s[^>]*?href\s*=\s*(["'])(.*?)\1/i.exec(tag);
      out.push(href === null ? ' ' : ` ${href[2]} `);
      at = close + 1;
    } else {
      out.push('<');
      at = open + 1;
    }
  }
  out.push(html.slice(at));
  return out.join('').replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, entityText);
}

function kindOf(link: string): MeetingKind | undefined {
  let host: string;
  try {
    host = new URL(link).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  return MEETING_HOSTS.find((candidate) => candidate.matches(host))?.kind;
}

/** Candidate links of one field, in the order they appear. */
function candidates(whole: string): string[] {
  const field = whole.length > MAX_LINK_FIELD_CHARS ? whole.slice(0, MAX_LINK_FIELD_CHARS) : whole;
  const plain = /<\/?[a-z][a-z0-9]*(?:\s[^<>]*)?\/?>/i.test(field) ? htmlText(field) : field;
  // A bare `meet.google.com/abc-defg-hij` (Google writes it so in some descriptions) counts too.
  const withScheme = plain.replace(/(^|[\s(<])(meet\.google\.com\/)/g, '$1https://$2');
  const links: string[] = [];
  for (const match of withScheme.matchAll(LINK)) {
    if (links.length >= MAX_LINKS_PER_FIELD) break;
    links.push(unwrapSafeLink(match[0].replace(/[.,;:!?>]+$/, '')));
  }
  return links;
}

/** Every occurrence of an event shares its LinkFields (ics-occurrences.ts): each event's fields are searched once. */
const foundFor = new WeakMap<LinkFields, FoundLink>();

export function findMeetingLink(fields: LinkFields): FoundLink {
  let found = foundFor.get(fields);
  if (found === undefined) {
    found = searchFields(fields);
    foundFor.set(fields, found);
  }
  return found;
}

function searchFields(fields: LinkFields): FoundLink {
  const ordered: Array<[LinkSource, string | undefined]> = [
    ...fields.conference.map((value): [LinkSource, string] => ['conference', value]),
    ['url', fields.url],
    ['location', fields.location],
    ['description', fields.descriptionHtml],
    ['description', fields.description],
  ];
  let refused: string | undefined;
  for (const [source, value] of ordered) {
    if (value === undefined || value === '') continue;
    for (const candidate of candidates(value)) {
      const kind = kindOf(candidate);
      if (kind === undefined) continue;
      const url = normalizeMeetingUrl(candidate);
      if (url !== undefined) return { found: true, url, source, kind };
      refused ??= `a ${kind} link in the ${source} (${new URL(candidate).hostname}) that the service does not accept`;
    }
  }
  return { found: false, reason: refused ?? 'no Zoom, Google Meet or Teams link in the event' };
}
