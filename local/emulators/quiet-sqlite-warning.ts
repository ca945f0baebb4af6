/**
 * fauxqs keeps its queues in node:sqlite, which Node 22 announces on every start as an
 * experimental feature: a line about the emulator's insides, not about anything the user does.
 * This drops that one warning; every other warning, experimental ones included, still prints.
 */
const SQLITE_WARNING = /^SQLite is an experimental feature/;

let installed = false;

/** From now on, Node's SQLite warning is not printed (once per process; idempotent). */
export function quietSqliteWarning(): void {
  if (installed) return;
  installed = true;
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const message = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === 'ExperimentalWarning' && SQLITE_WARNING.test(message)) return;
    emitWarning(warning, ...rest);
  }) as typeof process.emitWarning;
}
