/** Input fields several tools share, described once. */
import { z } from 'zod';

export const botIdInput = z
  .string()
  .min(1)
  .describe(
    'The meeting\'s bot id (e.g. "bot_48ac653979804dd7"), as search_meetings or a meeting:// resource gives it.',
  );

/**
 * A tool's arguments as a strict object: an argument the tool does not take is refused, with
 * the ones it does take named. The SDK builds a stripping object from a bare shape, which would
 * drop a misnamed filter (`search_meetings {"query": …}`) and answer as if none was given.
 */
export function toolInput<S extends z.ZodRawShape>(tool: string, shape: S) {
  const accepted = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${tool} takes no ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}; its arguments are: ${accepted}`
        : undefined,
  });
}
