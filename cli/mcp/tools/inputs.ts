/** Input fields several tools share, described once. */
import { z } from 'zod';

export const botIdInput = z
  .string()
  .min(1)
  .describe(
    'The meeting\'s bot id (e.g. "bot_48ac653979804dd7"), as search_meetings or a meeting:// resource gives it.',
  );
