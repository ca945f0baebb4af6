/**
 * Local mode's feed server for `--calendar FILE`: the file is read at each request, so one that
 * went away (or cannot be read) since the start is a 404, never a crash of local mode.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { serveFeed } from '../../local/calendar-feed-demo';

it('serves the file, then answers 404 once it is gone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'feed-'));
  const file = join(dir, 'calendar.ics');
  writeFileSync(file, 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n');
  const served = await serveFeed(() => readFileSync(file));
  try {
    const first = await fetch(served.url);
    expect([first.status, await first.text()]).toEqual([200, 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n']);
    rmSync(dir, { recursive: true, force: true });
    expect((await fetch(served.url)).status).toBe(404);
    // Still serving: the failed read did not take the server down.
    expect((await fetch(served.url)).status).toBe(404);
  } finally {
    await served.stop();
  }
});
