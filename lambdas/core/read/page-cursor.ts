/**
 * Opaque page cursors: where the last page ended, tied to the list it came from, so a cursor
 * passed to another list (another day, state or bot) is refused instead of silently misread.
 */
import { badRequest } from './read-errors';

export function encodeCursor(scope: string, position: string): string {
  return Buffer.from(JSON.stringify({ scope, position }), 'utf8').toString('base64url');
}

/** The position a cursor holds, undefined without one; 400 when it is not one this list gave out. */
export function decodeCursor(cursor: string | undefined, scope: string): string | undefined {
  if (cursor === undefined) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  const { scope: from, position } = (decoded ?? {}) as { scope?: unknown; position?: unknown };
  if (from !== scope || typeof position !== 'string') {
    throw badRequest(
      'invalid-cursor',
      'cursor is not one this list gave out: pass next_cursor from the previous page unchanged',
    );
  }
  return position;
}
