/**
 * How the service reads a meeting link (upstream-facts.md, `normalize_meeting_url`):
 * which Zoom, Google Meet and Teams links it takes, and the one form it stores
 * each as. The calendar sync normalizes links with it (one bot per meeting) and
 * the simulated service refuses links with it, so both agree with the service.
 */
const ANY_URL = /^https?:\/\/[^\s<>"']+/;

/** The service's own unquote: `%XX` sequences decoded, anything malformed left as it is. */
function unquote(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** Longer links are refused before they are read: real meeting links (Teams' included) are a few hundred characters. */
export const MAX_MEETING_URL_CHARS = 4_096;

/** Where a link starts, at any position: zero-width, so links overlapping each other all count. */
const URL_STARTS = /(?=https?:\/\/[^\s<>"'])/g;

const countStarts = (text: string): number => {
  let count = 0;
  for (const _ of text.matchAll(URL_STARTS)) count++;
  return count;
};

/** `%XX` decoded byte by byte, a byte that is not UTF-8 becoming U+FFFD: finds every link `unquote` can reveal. */
function lenientUnquote(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    const bytes = Buffer.from(run.replaceAll('%', ''), 'hex');
    return bytes.toString('utf8');
  });
}

/** Base64 suffixes of the link (its tail from a position where the rest is base64) that decode to a link. */
function base64Starts(url: string): number {
  const tail = /[A-Za-z0-9+/]*={0,2}$/.exec(url)?.[0] ?? '';
  let count = 0;
  for (let from = url.length - tail.length; from < url.length; from++) {
    if ((url.length - from) % 4 !== 0) continue;
    // A link is at most 12 characters of base64 away from showing (`https://x` is 9 bytes).
    const head = Buffer.from(url.slice(from, from + 12), 'base64').toString('utf8');
    if (ANY_URL.test(head)) count++;
  }
  return count;
}

/**
 * A link smuggling a second link (plain, percent-encoded twice over, or base64)
 * is refused. One pass over each form of the link: the most links any form
 * shows, plus the base64 tails that decode to one; more than one is refused.
 * (Decoding is lenient, so a link hidden behind a malformed byte still counts:
 * stricter than the service's own reading, never looser.)
 */
function carriesSeveralUrls(url: string): boolean {
  const once = lenientUnquote(url);
  const twice = lenientUnquote(once);
  return Math.max(countStarts(url), countStarts(once), countStarts(twice)) + base64Starts(url) > 1;
}

interface UrlParts {
  scheme: string;
  netloc: string;
  path: string;
  query: string;
}

/** Splits like Python's urlparse (enough for meeting links): scheme, host part, path, query. */
function splitUrl(url: string): UrlParts {
  const match = /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?/.exec(url);
  return { scheme: match?.[1] ?? '', netloc: match?.[2] ?? '', path: match?.[3] ?? '', query: match?.[4] ?? '' };
}

/** The host name of a link, with or without a scheme, lower case. */
function hostOf(url: string): string {
  const withScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) ? url : `https://${url}`;
  const netloc = splitUrl(withScheme).netloc;
  return netloc.replace(/^.*@/, '').replace(/:\d*$/, '').toLowerCase();
}

/** The first value of each query parameter, decoded; blank values dropped (parse_qs defaults). */
function firstQueryValues(query: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const pair of query.split(/[&;]/)) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const name = unquote(pair.slice(0, at).replaceAll('+', ' '));
    const value = unquote(pair.slice(at + 1).replaceAll('+', ' '));
    if (value !== '' && !values.has(name)) values.set(name, value);
  }
  return values;
}

const isUnder = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

function normalizeZoom(url: string): string | undefined {
  let parts = splitUrl(url);
  if (parts.scheme === '') parts = splitUrl(`https://${url}`);
  let netloc = parts.netloc.toLowerCase();
  if (netloc === 'zoom.com') netloc = 'zoom.us';
  else if (netloc.endsWith('.zoom.com')) netloc = `${netloc.slice(0, -'.zoom.com'.length)}.zoom.us`;
  let path = /^[A-Za-z0-9/_-]*/.exec(parts.path)?.[0] ?? '';
  if (!path.startsWith('/')) path = `/${path}`;
  path = path.replace(/\/+/g, '/');
  const params = firstQueryValues(parts.query);
  const kept: string[] = [];
  const password = /^[A-Za-z0-9]+(?:\.\d+)?/.exec(params.get('pwd') ?? '')?.[0];
  if (password !== undefined) kept.push(`pwd=${password}`);
  const token = params.get('tk')?.trim();
  if (token) kept.push(`tk=${token}`);
  if (!/\d/.test(path)) return undefined; // the meeting number
  return `https://${netloc}${path}${kept.length > 0 ? `?${kept.join('&')}` : ''}`;
}

const teamsMeetupLink = (conversation: string, message: string, tenant: string, organizer: string) =>
  `https://teams.microsoft.com/l/meetup-join/${conversation}/${message}?context={"Tid":"${tenant}","Oid":"${organizer}"}`;

function normalizeTeams(url: string): string | undefined {
  const meetup =
    /teams\.(?:microsoft|live)\.com(?:\/[^/]*)*?\/l\/meetup-join\/([^/]+)\/([^?]+)\?context=.*?"Tid":"([^"]+)".*?"Oid":"([^"]+)"/.exec(
      url,
    );
  if (meetup !== null) return teamsMeetupLink(meetup[1] ?? '', meetup[2] ?? '', meetup[3] ?? '', meetup[4] ?? '');

  const light = /teams\.microsoft\.com\/light-meetings\/launch\?.*coords=([^&]+)/.exec(url);
  if (light !== null) {
    try {
      const coords = JSON.parse(Buffer.from(unquote(light[1] ?? ''), 'base64').toString('utf8')) as Record<
        string,
        unknown
      >;
      const { conversationId, tenantId, organizerId } = coords;
      if (conversationId && tenantId && organizerId)
        return teamsMeetupLink(
          String(conversationId),
          String(coords.messageId ?? '0'),
          String(tenantId),
          String(organizerId),
        );
    } catch {
      // not a readable coords parameter: try the other forms
    }
  }

  const meet = /teams\.([^.]+\.com)(?:\/[^/]*)*?\/meet\/([^?]+)\?p=([^&\s]+)/.exec(url);
  if (meet !== null && (meet[1] === 'live.com' || meet[1] === 'microsoft.com'))
    return `https://teams.${meet[1]}/meet/${meet[2]}?p=${meet[3]}`;
  return undefined;
}

function normalizeOnce(url: string): string | undefined {
  if (url === '') return undefined;
  const host = hostOf(url);
  if (isUnder(host, 'zoom.us') || isUnder(host, 'zoom.com')) return normalizeZoom(url);
  if (host === 'meet.google.com') {
    const code = /meet\.google\.com\/([A-Za-z0-9-]+)/.exec(url)?.[1];
    if (code !== undefined) return `https://meet.google.com/${code}`;
  }
  if (host === 'teams.microsoft.com' || host === 'teams.live.com') return normalizeTeams(url);
  return undefined;
}

/**
 * The link the service stores for a Zoom, Google Meet or Teams meeting, or
 * undefined when it refuses the link. A link is tried as given and then decoded
 * up to twice more (calendar invites often carry it percent-encoded).
 */
export function normalizeMeetingUrl(raw: string): string | undefined {
  if (raw.length > MAX_MEETING_URL_CHARS) return undefined;
  let url = raw.trim().replace(/>+$/, '');
  for (let attempt = 0; attempt < 3; attempt++) {
    const normalized = normalizeOnce(url);
    if (normalized !== undefined && !carriesSeveralUrls(normalized)) return normalized;
    url = unquote(url);
  }
  return undefined;
}
