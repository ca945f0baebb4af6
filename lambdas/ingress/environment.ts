import { z } from 'zod';

/** Environment the ingress function is deployed with (set by lib/webhook-ingress.ts). */
export const ingressEnvironmentSchema = z.object({
  EVENTS_QUEUE_URL: z.url(),
  PAYLOAD_BUCKET: z.string().min(1),
  SIGNING_SECRET_ID: z.string().min(1),
  MAX_BODY_BYTES: z.coerce.number().int().positive(),
  INLINE_MESSAGE_LIMIT_BYTES: z.coerce.number().int().positive(),
  SECRET_CACHE_SECONDS: z.coerce.number().int().nonnegative(),
});
export type IngressEnvironment = z.infer<typeof ingressEnvironmentSchema>;

export const INGRESS_ENV_KEYS = ingressEnvironmentSchema.keyof().enum;
