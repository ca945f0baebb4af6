/**
 * What local mode keeps on disk (`.local`: the endpoints file with the signing secret and the service's API
 * key, the table's data, the events) is the operator's alone: the folder 0700, a file holding a secret 0600.
 * Modes are set on what exists too, so a folder or file an older version made with the umask's 0755/0644 is
 * tightened, and a secret is written only into a file that is already private.
 */
import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, writeFileSync } from 'node:fs';

export const PRIVATE_FOLDER_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Makes the folder (and its parents) if missing, and leaves it 0700 either way. */
export function privateFolder(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  chmodSync(path, PRIVATE_FOLDER_MODE);
}

/** Replaces the file's text, the file 0600 before a byte is written. */
export function writePrivateFile(path: string, text: string): void {
  const fd = openSync(path, 'w', PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
