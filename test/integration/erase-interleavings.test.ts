/**
 * An erasure against everything that may meet it, over random interleavings at every DynamoDB call
 * (fixtures/scheduled-clients.ts): the meeting's webhooks delivered again late (the service retries,
 * SQS redelivers), a second erasure of the same meeting (`data_deleted` after a request), and a
 * retention run — with a fault at a random call of the first erasure. Once a failed erasure has run
 * again (its queue redelivers it) and the second sweep has run: the meeting's tombstone is all that
 * is left anywhere (every table item, object version and lake file, as tracesOf reads them), even
 * after one more late delivery. `SOAK_RUNS=<n>` runs it longer (npm run soak).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eraseMeeting, resweepErasedMeeting } from '../../lambdas/core/erase/erase-meeting';
import type { ErasureJob } from '../../lambdas/core/erase/erasure-job';
import { runRetention } from '../../lambdas/core/erase/retention';
import { processQueuedEvent } from '../../lambdas/core/events/process-event';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { eraseDeps, eraseWorldOfFile, seedMeeting, tombstoneOnly, tracesOf } from '../fixtures/erase-harness';
import { processDependencies } from '../fixtures/local-pipeline';
import { clientFault, propertyParameters, reportExplored, scheduledClient } from '../fixtures/scheduled-clients';

const world = eraseWorldOfFile();

describe('an erasure under random interleavings', () => {
  it('leaves only the tombstone, whatever meets it and wherever it fails', async () => {
    const parameters = propertyParameters(4);
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.boolean(),
        fc.boolean(),
        clientFault(40),
        async (scheduler, redelivered, secondErasure, retention, fault) => {
          const { botId, messages } = await seedMeeting(world, { utterances: 2 });
          const client = (label: string, f?: typeof fault) => scheduledClient(documentClient(), scheduler, label, f);
          const erasure = client('erasure', fault);
          const failed: unknown[] = [];
          const racing: Promise<unknown>[] = [
            eraseMeeting(botId, 'request', eraseDeps(world, { db: erasure.client })).catch((error: unknown) =>
              failed.push(error),
            ),
            // Late deliveries: whatever they do must not outlive the erasure (their failures are retried by SQS).
            ...redelivered.map((i, n) =>
              processQueuedEvent(
                messages[i % messages.length]!,
                processDependencies(world.resources, silentTelemetry, {
                  db: client(`webhook ${n}`).client,
                  events: world.events.publisher,
                }),
              ).catch(() => undefined),
            ),
            ...(secondErasure
              ? [
                  eraseMeeting(
                    botId,
                    'upstream-data-deleted',
                    eraseDeps(world, { db: client('second erasure').client }),
                  ),
                ]
              : []),
            ...(retention
              ? [
                  runRetention(
                    { retentionDays: 30, maxMeetings: 10_000 },
                    {
                      table: { db: client('retention').client, tableName: world.resources.tableName },
                      queue: { send: async (_job: ErasureJob) => undefined },
                      telemetry: silentTelemetry,
                      now: () => new Date(Date.parse('2026-12-24T00:00:00Z')),
                    },
                  ),
                ]
              : []),
          ];
          await scheduler.waitFor(Promise.all(racing));

          // The erasure queue redelivers a failed job; the scheduled second sweep follows every erasure.
          if (failed.length > 0) await eraseMeeting(botId, 'request', eraseDeps(world));
          await resweepErasedMeeting(botId, eraseDeps(world));
          // And a delivery later still (SQS keeps a message 14 days): after every sweep, it must drop itself.
          for (const i of redelivered.slice(0, 1))
            await processQueuedEvent(
              messages[i % messages.length]!,
              processDependencies(world.resources, silentTelemetry, { events: world.events.publisher }),
            ).catch(() => undefined);
          expect(await tracesOf(world, botId)).toEqual(tombstoneOnly(botId));
        },
      ),
      parameters,
    );
    reportExplored('erasure', parameters.numRuns ?? 0);
  }, 600_000);
});
