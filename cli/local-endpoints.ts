/** `.local/endpoints.json` as `npm run dev` writes it (bin/dev.ts): what the CLI's local mode reads. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { CliError, EXIT } from './exit-codes';

export const DEFAULT_ENDPOINTS_FILE = '.local/endpoints.json';

/** Where the CLI's local mode mirrors a bucket's `lake/` for DuckDB: next to the endpoints file. */
export const lakeMirrorDirOf = (endpointsFile: string, bucket: string): string =>
  join(dirname(resolve(endpointsFile)), 'lake-mirror', bucket);

export const localEndpointsSchema = z.object({
  webhookUrl: z.string().optional(),
  scheduleApiUrl: z.string(),
  /** The simulated (or external) service's API root. */
  serviceApiUrl: z.string().optional(),
  /** Where local mode appends each domain event's PutEvents entry. */
  eventsFile: z.string().optional(),
  /** The read API's base; the same server as the schedule API. */
  readApiUrl: z.string().optional(),
  region: z.string().optional(),
  /** The webhook signing secret (base64) and the service API key local mode runs with: `doctor --local` checks them. */
  signingSecret: z.string().optional(),
  serviceApiKey: z.string().optional(),
  dynamodb: z.object({ endpoint: z.string().optional(), tableName: z.string() }),
  s3: z.object({ endpoint: z.string().optional(), payloadBucket: z.string(), recordingsBucket: z.string().optional() }),
  sqs: z.object({
    endpoint: z.string().optional(),
    eventsQueueUrl: z.string(),
    eventsDeadLetterQueueUrl: z.string(),
    archiveQueueUrl: z.string(),
    archiveDeadLetterQueueUrl: z.string().optional(),
  }),
});
export type LocalEndpoints = z.infer<typeof localEndpointsSchema>;

/**
 * The endpoints file of the local mode this folder belongs to: `.local/endpoints.json` here or in the nearest
 * folder above (as git finds `.git`), so the CLI works from any subfolder of the repository.
 */
export function findLocalEndpointsFile(from: string = process.cwd()): string {
  const start = resolve(from);
  for (let folder = start; ; folder = dirname(folder)) {
    const file = join(folder, DEFAULT_ENDPOINTS_FILE);
    if (existsSync(file)) return file;
    if (dirname(folder) === folder) break;
  }
  throw new CliError(
    `No ${DEFAULT_ENDPOINTS_FILE} in ${start} or any folder above it: start local mode first (npm run dev -- --serve), or pass --endpoint or --endpoints-file.`,
    EXIT.usage,
  );
}

export function readLocalEndpoints(file: string): LocalEndpoints {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new CliError(`No ${file}: start local mode first (npm run dev -- --serve), or pass --endpoint.`, EXIT.usage);
  }
  const parsed = localEndpointsSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new CliError(`${file} is not what npm run dev writes: ${parsed.error.message}`);
  return parsed.data;
}
