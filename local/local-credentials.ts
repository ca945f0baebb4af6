/**
 * Local mode's credentials reader (the company sync's CredentialsReader): a secret
 * name resolves to the value the sample tenant made (`--calendar-simulators`), or
 * to the entry of that name in the JSON file `--calendar-secrets FILE` names, read
 * at each call so an edit shows at the next sync. An entry's value is the secret's
 * text; an object (a service-account key pasted as JSON) stands for its JSON text.
 */
import { readFileSync } from 'node:fs';
import { type CredentialsReader, CredentialsUnavailableError } from '../lambdas/core/calendar/company/credentials';

export interface LocalCredentialsOptions {
  /** Secret name -> value (the sample tenant's). */
  values?: ReadonlyMap<string, string>;
  /** A JSON object file: secret name -> value. */
  file?: string;
}

/** The file's secrets, or why it cannot be used (never quoting a value). */
export function readCredentialsFile(file: string): Map<string, string> | { problem: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { problem: `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: `${file} is not JSON (expected an object: secret name -> value)` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { problem: `${file} must hold a JSON object: secret name -> value` };
  const secrets = new Map<string, string>();
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value === 'string' && value !== '') secrets.set(name, value);
    else if (typeof value === 'object' && value !== null) secrets.set(name, JSON.stringify(value));
    else return { problem: `${file}: the entry ${JSON.stringify(name)} must be a non-empty string or a JSON object` };
  }
  return secrets;
}

export function localCredentials(options: LocalCredentialsOptions): CredentialsReader {
  return async (secretName) => {
    const value = options.values?.get(secretName);
    if (value !== undefined) return value;
    if (options.file !== undefined) {
      const secrets = readCredentialsFile(options.file);
      if (!(secrets instanceof Map)) throw new CredentialsUnavailableError(secretName, secrets.problem);
      const fromFile = secrets.get(secretName);
      if (fromFile !== undefined) return fromFile;
    }
    throw new CredentialsUnavailableError(
      secretName,
      `no local secret by that name (${options.file === undefined ? 'give --calendar-secrets FILE' : `not in ${options.file}`}${options.values === undefined ? '' : "; --calendar-simulators holds only the sample tenant's"})`,
    );
  };
}
