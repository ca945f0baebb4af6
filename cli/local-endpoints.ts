/** `.local/endpoints.json` as `npm run dev` writes it (bin/dev.ts): what the CLI's local mode reads. */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CliError, EXIT } from './exit-codes';

export const DEFAULT_ENDPOINTS_FILE = '.local/endpoints.json';

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
