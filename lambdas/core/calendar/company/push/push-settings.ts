/**
 * Where the notification routes are and what the push code allows itself. The
 * routes are unauthenticated (the providers cannot sign for IAM): each request is
 * held by the caps here before anything is parsed or read.
 */
export const PUSH_ROUTES = {
  google: '/calendars/push/google',
  microsoft: '/calendars/push/microsoft',
  microsoftLifecycle: '/calendars/push/microsoft/lifecycle',
} as const;

/** The same routes as HTTP API route keys (the stack's API and the local one). */
export const CALENDAR_PUSH_ROUTES = {
  google: `POST ${PUSH_ROUTES.google}`,
  microsoft: `POST ${PUSH_ROUTES.microsoft}`,
  microsoftLifecycle: `POST ${PUSH_ROUTES.microsoftLifecycle}`,
} as const;

export interface PushSettings {
  /** The HTTP API's public base URL (https in AWS), without a trailing slash: the routes are under it. */
  publicBaseUrl: string;
  /** Renew (Graph) or replace (Google) a channel expiring sooner than this; more than the renewal run's interval. */
  renewMarginMs: number;
  /** Lifetime asked for a Google channel. */
  googleChannelTtlSeconds: number;
  /** Kept off Graph's 4,230-minute ceiling, so clock skew never makes a renewal ask for too much. */
  graphSafetyMarginMs: number;
}

export interface PushLimits {
  /** Bytes of a Graph notification body read; a larger one is refused unparsed. */
  maxBodyBytes: number;
  /** Notifications in one Graph request looked at; more is refused. */
  maxItems: number;
  /** Characters of a validation token echoed; a longer one is refused. */
  maxValidationTokenChars: number;
}

export const DEFAULT_PUSH_LIMITS: PushLimits = {
  // Graph batches notifications; 100 items of ~600 bytes each fit well inside.
  maxBodyBytes: 64 * 1024,
  maxItems: 100,
  maxValidationTokenChars: 512,
};

/** Graph's longest lifetime for a subscription on Outlook events. */
export const GRAPH_EVENT_SUBSCRIPTION_MAX_MINUTES = 4_230;

export const DEFAULT_PUSH_TIMING = {
  renewMarginMs: 3 * 3_600_000,
  googleChannelTtlSeconds: 7 * 86_400,
  graphSafetyMarginMs: 10 * 60_000,
} as const satisfies Omit<PushSettings, 'publicBaseUrl'>;
