/**
 * Links read from fields an invite's author writes: a link smuggling a second one
 * is refused in every form the service reads, a link or field too long to be real
 * is cut off before it is parsed, and hostile HTML is read in one pass.
 */
import { describe, expect, it } from 'vitest';
import { findMeetingLink, MAX_LINK_FIELD_CHARS } from '../../lambdas/core/calendar/meeting-link';
import { MAX_MEETING_URL_CHARS, normalizeMeetingUrl } from '../../lambdas/core/upstream/meeting-url';

const fields = (description: string) => ({
  conference: [],
  url: undefined,
  location: undefined,
  description,
  descriptionHtml: undefined,
});

describe('a meeting link', () => {
  it('is taken alone, and refused when it carries a second link in any form', () => {
    expect(normalizeMeetingUrl('https://acme.zoom.us/j/85512345678?pwd=abc')).toBe(
      'https://acme.zoom.us/j/85512345678?pwd=abc',
    );
    expect(normalizeMeetingUrl('https://meet.google.com/abc-defg-hij')).toBe('https://meet.google.com/abc-defg-hij');
    for (const smuggled of [
      'https://zoom.us/j/123?tk=https://evil.example',
      'https://zoom.us/j/123?tk=https%3A%2F%2Fevil.example',
      'https://zoom.us/j/123?tk=https%25253A%25252F%25252Fevil.example',
      `https://zoom.us/j/123?tk=${Buffer.from('https://evil.example').toString('base64')}`,
    ])
      expect(normalizeMeetingUrl(smuggled), smuggled).toBeUndefined();
  });

  it(`is refused past ${MAX_MEETING_URL_CHARS} characters, before it is read`, () => {
    const long = `https://zoom.us/j/123?tk=${'a'.repeat(MAX_MEETING_URL_CHARS)}`;
    expect(normalizeMeetingUrl(long)).toBeUndefined();
    expect(normalizeMeetingUrl(`https://zoom.us/j/123?tk=${'a'.repeat(100)}`)).toBeDefined();
  });

  it('is looked for only in the start of a field, and found behind 1 MiB of unclosed tags', () => {
    const link = 'https://meet.google.com/abc-defg-hij';
    expect(findMeetingLink(fields(`${'x'.repeat(MAX_LINK_FIELD_CHARS)} ${link}`))).toMatchObject({ found: false });
    // A `<` with no `>` after it, again and again: read once, not once per `<`.
    const hostile = `<p>${link}</p>${'<a href="'.repeat((1024 * 1024) / 9)}`;
    expect(findMeetingLink(fields(hostile))).toMatchObject({ found: true, url: link });
    expect(findMeetingLink(fields(`<b>&#99999999999; &#x110000; ${link}</b>`))).toMatchObject({ found: true });
  });
});
