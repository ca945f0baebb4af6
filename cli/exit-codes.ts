/** What the CLI's exit status means: scripts branch on these, and `--help` lists them. */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  notFound: 3,
  denied: 4,
  checksumMismatch: 5,
  checkFailed: 6,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `exit codes:
  0  ok
  1  error (the API or AWS failed, some items of a redrive failed, or an erasure was not confirmed)
  2  usage: a bad command, flag or value (also a request the API refused as invalid, 400), or erase
     without --yes where no terminal can ask
  3  not found (404): no such meeting, schedule, recording or stack, or a bot the pipeline never saw
  4  denied (401/403): credentials missing, expired or without permission
  5  checksum mismatch: downloaded bytes differ from the recording's sha256
  6  check failed: doctor found something a working deployment needs missing`;

/** An error a person can act on, with the exit status it ends the CLI with. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.error,
  ) {
    super(message);
  }
}

export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

/** AWS errors that mean the caller's credentials are missing, expired or not allowed. */
export function isDeniedByAws(errorName: string): boolean {
  return /AccessDenied|UnrecognizedClient|ExpiredToken|InvalidClientTokenId|CredentialsProviderError|SignatureDoesNotMatch/.test(
    errorName,
  );
}

/** The exit status for an HTTP error status. */
export function exitCodeForStatus(status: number): ExitCode {
  if (status === 404) return EXIT.notFound;
  if (status === 401 || status === 403) return EXIT.denied;
  if (status === 400) return EXIT.usage;
  return EXIT.error;
}

/**
 * `127.0.0.1:PORT` when the error (or one it was caused by) is a refused connection to this machine:
 * for the CLI, local mode (or the endpoint given) is not running there.
 */
export function refusedLoopback(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const current = queue.shift() as {
      code?: unknown;
      address?: unknown;
      port?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    if (current.code === 'ECONNREFUSED' && (current.address === '127.0.0.1' || current.address === '::1'))
      return `${current.address === '::1' ? '[::1]' : '127.0.0.1'}:${String(current.port)}`;
    queue.push(current.cause, ...(Array.isArray(current.errors) ? current.errors : []));
  }
  return undefined;
}

/** What to say when nothing answers on this machine. */
export const localModeDownMessage = (where: string): string =>
  `nothing answers at ${where}: local mode is not running here (start it with npm run dev), or the endpoint names another port`;
