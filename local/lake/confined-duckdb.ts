/**
 * The one way the project opens DuckDB: an in-memory database that reads files in one directory
 * only. The SQL it runs may be a user's (CLI `query`, the local Athena emulator), and DuckDB's
 * defaults would let such a text read any file the process can (`read_text('~/.ssh/id_rsa')`),
 * write one (`COPY … TO`), attach a database or fetch an extension. Here:
 *  - `allowed_directories` is the directory alone (its real path: DuckDB checks the path a
 *    symlink resolves to, so a link inside pointing outside is refused, and so is `..` out of it);
 *  - `enable_external_access=false` closes every other path, the network and ATTACH;
 *  - extensions are never installed or loaded, on request or automatically;
 *  - `lock_configuration=true` last, so no statement can SET any of it back.
 * `allowed_directories` cannot be given when the instance is created (the C API refuses it), and
 * only while external access is still on: hence the SET statements, in this order.
 */
import { mkdir, realpath } from 'node:fs/promises';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

export interface ConfinedDuckDb {
  /** The directory's real path: the files DuckDB is given must be named under it. */
  dir: string;
  connection: DuckDBConnection;
  close(): void;
}

/** A DuckDB string literal (a doubled quote escapes one). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

export async function openConfinedDuckDb(directory: string): Promise<ConfinedDuckDb> {
  // Local mode's mirror is made on the first query, after its engine opened: the folder may not exist yet.
  await mkdir(directory, { recursive: true });
  const dir = await realpath(directory);
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const connection = await instance.connect();
  const close = () => {
    connection.closeSync();
    instance.closeSync();
  };
  try {
    // The trailing slash allows the directory's contents, not a sibling sharing its prefix.
    await connection.run(`SET allowed_directories = [${literal(`${dir}/`)}]`);
    await connection.run('SET enable_external_access = false');
    await connection.run('SET lock_configuration = true');
  } catch (error) {
    close();
    throw error;
  }
  return { dir, connection, close };
}
