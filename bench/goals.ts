/**
 * The performance goals the bench checks, each once: every section prints its figure beside its
 * goal with "meets" or "MISSES". Raising or lowering one is a decision of its own, said in its commit.
 */
export const GOALS = {
  /** The ingress bundle over one that holds only the SQS client: size and module init, each at most. */
  ingressOverSqsOnly: 1.3,
  /** The consumer's events/s over dynalite's raw conditional put of a minimal item, at least. */
  consumerOverRawPut: 0.6,
  /** Canonical verification over a bare HMAC of the same body, English and accented text, at most. */
  verifyOverBareHmac: 2,
  /** The worst hostile body at the size limit, verified and refused, at most (ms). */
  hostileBodyMs: 100,
  /** A lake keyword search or talk-time question over all time, at most (s). */
  lakeQuerySeconds: 2,
} as const;
