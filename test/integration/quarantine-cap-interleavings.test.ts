/**
 * The quarantine's shared caps (quarantine-cap.ts) under random interleavings: several ingress
 * instances, each with its own cap object, admit bodies of random sizes for a few bots in one
 * minute, every DynamoDB call ordered by fast-check's scheduler, with a fault at a random call of
 * one instance (before the update reached the table, or after: counted, but the caller saw an
 * error). Invariants: what the caps admit never passes them (entries and bytes a minute, entries
 * a bot and day), and without a fault nothing under the caps is refused.
 * `SOAK_RUNS=<n>` runs it longer (npm run soak).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuarantineLimits } from '../../lambdas/core/ingress/quarantine';
import { tableQuarantineCap } from '../../lambdas/core/ingress/quarantine-cap';
import { dynamoClient } from '../../lambdas/shared/dynamo-plain-client';
import type { LocalResources } from '../../local/resources';
import { createResources, type LocalPipeline, startLocalPipeline } from '../fixtures/local-pipeline';
import { clientFault, propertyParameters, reportExplored, scheduledClient } from '../fixtures/scheduled-clients';

let pipeline: LocalPipeline;
let resources: LocalResources;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
});
afterAll(async () => pipeline?.stop());

type Limits = Pick<QuarantineLimits, 'maxEntriesPerMinute' | 'maxBytesPerMinute' | 'maxEntriesPerBotPerDay'>;
const limits: fc.Arbitrary<Limits> = fc.record({
  maxEntriesPerMinute: fc.integer({ min: 1, max: 8 }),
  maxBytesPerMinute: fc.integer({ min: 100, max: 4_000 }),
  maxEntriesPerBotPerDay: fc.integer({ min: 1, max: 5 }),
});
/** One body: its size, the bot it names (of three, or none), the ingress instance that got it. */
const body = fc.record({
  bytes: fc.integer({ min: 1, max: 1_000 }),
  bot: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
  instance: fc.integer({ min: 0, max: 2 }),
});

describe('quarantine caps under random interleavings', () => {
  it("refuse a body larger than the minute's bytes even as its first, and still admit one that fits", async () => {
    const cap = tableQuarantineCap(dynamoClient(), resources.tableName, {
      maxEntriesPerMinute: 5,
      maxBytesPerMinute: 2_048,
      maxEntriesPerBotPerDay: 5,
    });
    const at = new Date(Date.UTC(2026, 10, 22, 7, 13));
    expect(await cap.admit({ bytes: 4_096, owner: undefined, at })).toBe('per-minute');
    expect(await cap.admit({ bytes: 1_024, owner: undefined, at })).toBeUndefined();
  });

  it('never admit past a cap, and refuse nothing under the caps without a fault', async () => {
    const parameters = propertyParameters(30);
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        limits,
        fc.array(body, { minLength: 1, maxLength: 14 }),
        clientFault(10),
        async (scheduler, caps, bodies, fault) => {
          // A minute of its own, so runs never share counters.
          const at = new Date(Date.UTC(2026, 10, 22) + Math.floor(Math.random() * 1e9) * 60_000);
          const run = randomUUID().slice(0, 8);
          const clients = [0, 1, 2].map((i) =>
            scheduledClient(dynamoClient(), scheduler, `ingress ${i}`, i === 0 ? fault : undefined),
          );
          const instances = clients.map(({ client }) => tableQuarantineCap(client, resources.tableName, caps));
          const verdicts = await scheduler.waitFor(
            Promise.all(
              bodies.map((b) =>
                instances[b.instance]!.admit({
                  bytes: b.bytes,
                  owner: b.bot === undefined ? undefined : `bot_${run}_${b.bot}`,
                  at,
                }).then(
                  (refusal) => refusal ?? ('admitted' as const),
                  () => 'error' as const,
                ),
              ),
            ),
          );

          const admitted = bodies.filter((_, i) => verdicts[i] === 'admitted');
          expect(admitted.length).toBeLessThanOrEqual(caps.maxEntriesPerMinute);
          expect(admitted.reduce((sum, b) => sum + b.bytes, 0)).toBeLessThanOrEqual(caps.maxBytesPerMinute);
          for (const bot of [0, 1, 2])
            expect(admitted.filter((b) => b.bot === bot).length).toBeLessThanOrEqual(caps.maxEntriesPerBotPerDay);

          const faulted = clients.some((c) => c.faulted());
          const totalBytes = bodies.reduce((sum, b) => sum + b.bytes, 0);
          const perBot = Math.max(0, ...[0, 1, 2].map((bot) => bodies.filter((b) => b.bot === bot).length));
          const underCaps =
            bodies.length <= caps.maxEntriesPerMinute &&
            totalBytes <= caps.maxBytesPerMinute &&
            perBot <= caps.maxEntriesPerBotPerDay;
          if (!faulted && underCaps) expect(verdicts.every((v) => v === 'admitted')).toBe(true);
        },
      ),
      parameters,
    );
    reportExplored('quarantine caps', parameters.numRuns ?? 0);
  }, 600_000);
});
