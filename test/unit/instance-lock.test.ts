/** Local mode's lock: a lock is held only by a running local mode, not by whatever now has its pid. */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireInstanceLock, LOCAL_MODE_ENTRY, LOCK_FILE_NAME, processAlive } from '../../local/instance-lock';
import { scratchDir } from '../fixtures/scratch';

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

describe('the local mode lock', () => {
  it('is stale when its pid now runs another program (a container restarted, the pid reused)', () => {
    const other = spawn('sleep', ['30']);
    children.push(other);
    const pid = other.pid ?? 0;
    expect(processAlive(pid, () => 'sleep 30')).toBe(false);
    expect(processAlive(pid, () => `node --import tsx /repo/bin/${LOCAL_MODE_ENTRY}`)).toBe(true);
    // Where no command line can be read, a running pid is taken at its word.
    expect(processAlive(pid, () => undefined)).toBe(true);
  });

  it.runIf(process.platform === 'linux')('is taken over from a running process that is not local mode', () => {
    const folder = scratchDir('lock-');
    const other = spawn('sleep', ['30']);
    children.push(other);
    writeFileSync(
      join(folder, LOCK_FILE_NAME),
      JSON.stringify({ pid: other.pid, startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    const taken = acquireInstanceLock(folder);
    expect('lock' in taken).toBe(true);
    if ('lock' in taken) taken.lock.release();
  });
});
