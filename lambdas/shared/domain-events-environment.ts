import * as z from 'zod/mini';

/** What every function that publishes domain events is deployed with (set by lib/domain-events.ts). */
export const domainEventsEnvironmentShape = {
  EVENT_BUS_NAME: z.string().check(z.minLength(1)),
};
export type DomainEventsEnvironment = { [K in keyof typeof domainEventsEnvironmentShape]: string };
