import type { DomainEventPublisher } from '../domain-events/publisher';
import type { QuarantineStore } from '../ingress/quarantine';
import type { LakeObjects } from '../lake/lake-contract';
import type { TableAccess } from '../store/dynamo';
import type { ObjectVersionStore } from '../store/object-versions';
import type { Telemetry } from '../telemetry';
import type { RetainedCopiesSettings } from './receipt';

/** The service's side of an erasure (`eraseUpstream`): its copy of the recording, transcript, participants. */
export interface UpstreamEraser {
  /** The bot's state at the service; throws NotFoundError for a bot it does not know. */
  getBot(botId: string): Promise<{ state?: string | null }>;
  /** POST bots/{id}/delete_data. */
  deleteBotData(botId: string): Promise<void>;
}

/** Sends the delayed second sweep (erase-meeting.ts: why it exists). */
export interface ResweepScheduler {
  schedule(botId: string): Promise<void>;
}

/**
 * Copies of the lake kept outside its bucket (local mode's folders that mirror the bucket's `lake/` for
 * DuckDB). A copy must not keep what the bucket no longer has, so the erasure brings each back to the bucket.
 */
export interface LakeCopies {
  /** How many files of the copies hold rows of the bot now (the receipt's `lake_copies`). */
  filesHolding(botId: string): Promise<number>;
  /** Brings every copy to what the bucket holds: files deleted there go, files rewritten there are fetched again. */
  resync(): Promise<void>;
}

/** The erase core's clients and settings; the Lambda, local mode and tests build them alike. */
export interface EraseDependencies {
  table: TableAccess;
  objects: ObjectVersionStore;
  payloadBucket: string;
  recordingsBucket: string;
  /** Quarantined webhooks of the first key layout (in the payload bucket): read to find the bot's. */
  quarantine: Pick<QuarantineStore, 'list' | 'read'>;
  events: DomainEventPublisher;
  /** Set when the service is to delete its copy too (`eraseUpstream`). */
  upstream?: UpstreamEraser;
  resweep: ResweepScheduler;
  /** The lake (its bucket's `lake/` and query results); the erase function always has it, tests of other stores may leave it out. */
  lake?: LakeObjects;
  /** Local mode only: its mirrors of the lake, brought back to the bucket once the lake is swept. */
  lakeCopies?: LakeCopies;
  retained: RetainedCopiesSettings;
  telemetry: Telemetry;
  now(): Date;
  newId(): string;
}
