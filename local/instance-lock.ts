/**
 * One `npm run dev` per folder: a second would reset the first's data and overwrite its endpoints file.
 * The lock is a file in `.local` naming the running instance (pid, start time, endpoints once known); a lock
 * whose process is gone (a crash, a kill -9) is stale and taken over.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE } from './private-files';

export const LOCK_FILE_NAME = 'dev.lock';

export interface LockHolder {
  pid: number;
  startedAt: string;
  /** What a person needs to find the running instance: its webhook URL, APIs, port. */
  endpoints?: Record<string, string>;
}

export interface InstanceLock {
  file: string;
  /** Records the instance's endpoints in the lock once the stack is up. */
  describe(endpoints: Record<string, string>): void;
  /** Removes the lock if it is still this process's. */
  release(): void;
}

/** Whether a process with this id runs (EPERM: it runs, as another user). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the lock's process is still local mode. A pid alone can mislead: after a container restart
 * the dead instance's pid (often a small one) belongs to another program. Where `/proc` tells a
 * process's command line (Linux), it must name local mode's entry; elsewhere a running pid is taken
 * at its word.
 */
export function processAlive(pid: number, readCommandLine = procCommandLine): boolean {
  if (!processRuns(pid)) return false;
  const commandLine = readCommandLine(pid);
  return commandLine === undefined || commandLine.includes(LOCAL_MODE_ENTRY);
}

/** The file every `npm run dev` runs (bin/dev.ts). */
export const LOCAL_MODE_ENTRY = 'dev.ts';

function procCommandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    return typeof holder.pid === 'number' && Number.isInteger(holder.pid) && holder.pid > 0
      ? (holder as LockHolder)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock in `folder` for this process, or answers who holds it. */
export function acquireInstanceLock(
  folder: string,
  alive: (pid: number) => boolean = processAlive,
): { lock: InstanceLock } | { heldBy: LockHolder } {
  const file = join(folder, LOCK_FILE_NAME);
  const mine: LockHolder = { pid: process.pid, startedAt: new Date().toISOString() };
  const write = (holder: LockHolder, flag: 'wx' | 'w') =>
    writeFileSync(file, `${JSON.stringify(holder, null, 2)}\n`, { flag, mode: PRIVATE_FILE_MODE });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      write(mine, 'wx');
      return {
        lock: {
          file,
          describe: (endpoints) => write({ ...mine, endpoints }, 'w'),
          release: () => {
            if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
          },
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(file);
    // A running holder keeps it; a dead one's (or an unreadable, half-written) lock is stale.
    if (holder !== undefined && holder.pid !== process.pid && alive(holder.pid)) return { heldBy: holder };
    rmSync(file, { force: true });
  }
  const holder = readHolder(file);
  return { heldBy: holder ?? { pid: 0, startedAt: 'unknown' } };
}

/** The one line naming the running instance. */
export function describeHolder(holder: LockHolder): string {
  const where = Object.entries(holder.endpoints ?? {})
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
  return `pid ${holder.pid}, started ${holder.startedAt}${where === '' ? '' : `, ${where}`}`;
}
