/**
 * EventBridge's PutEvents on 127.0.0.1 for the real SDK client (JSON 1.1, `AWSEvents.PutEvents`),
 * over a fixed set of buses, keeping every accepted entry for the test to read. A call over
 * PutEvents' limits (10 entries, 256 KiB) is refused whole (ValidationException); each entry is
 * answered on its own, in order (an EventId, or an ErrorCode counted in FailedEntryCount).
 *
 * One deliberate difference: an entry for a bus that does not exist is refused here
 * (ResourceNotFoundException, `Event bus <name> does not exist.`), where EventBridge has been seen to
 * accept it and drop it silently (aws/aws-cli#9186). A wrong bus name in a function's environment
 * must fail a test rather than lose every event quietly.
 */
import { randomUUID } from 'node:crypto';
import { AwsJsonError } from './aws-json/errors';
import { type AwsJsonServer, type JsonBody, startAwsJsonServer } from './aws-json/server';

export interface EventBridgeStandInOptions {
  region: string;
  account: string;
  /** Bus names besides `default`, which every account has. */
  buses: string[];
}

export interface AcceptedEvent {
  /** The bus's name, whichever way the entry named it. */
  bus: string;
  id: string;
  source: string;
  detailType: string;
  detail: unknown;
  resources: string[];
}

export interface EventBridgeStandIn extends AwsJsonServer {
  accepted: AcceptedEvent[];
  /** Entries refused, with their code. */
  refused: { entry: JsonBody; code: string }[];
}

const MAX_ENTRIES = 10;
const MAX_BYTES = 256 * 1024;

/** An entry's size as PutEvents counts it, near enough for the limit. */
const entryBytes = (entry: JsonBody) =>
  ['Source', 'DetailType', 'Detail', 'EventBusName'].reduce(
    (sum, member) => sum + Buffer.byteLength(typeof entry[member] === 'string' ? entry[member] : ''),
    0,
  );

export async function startEventBridgeStandIn(options: EventBridgeStandInOptions): Promise<EventBridgeStandIn> {
  const arnPrefix = `arn:aws:events:${options.region}:${options.account}:event-bus/`;
  const buses = new Set(['default', ...options.buses]);
  const accepted: AcceptedEvent[] = [];
  const refused: EventBridgeStandIn['refused'] = [];

  const busOf = (named: string): string => (named.startsWith(arnPrefix) ? named.slice(arnPrefix.length) : named);

  const answerEntry = (entry: JsonBody): JsonBody => {
    const named = typeof entry.EventBusName === 'string' ? entry.EventBusName : 'default';
    const refuse = (code: string, message: string) => {
      refused.push({ entry, code });
      return { ErrorCode: code, ErrorMessage: message };
    };
    if (!buses.has(busOf(named))) return refuse('ResourceNotFoundException', `Event bus ${named} does not exist.`);
    const { Source, DetailType, Detail } = entry;
    if (typeof Source !== 'string' || typeof DetailType !== 'string' || typeof Detail !== 'string')
      return refuse('InvalidArgument', 'Parameters Source, DetailType and Detail are required.');
    let detail: unknown;
    try {
      detail = JSON.parse(Detail);
    } catch {
      return refuse('MalformedDetail', 'Detail is malformed.');
    }
    const id = randomUUID();
    const resources = Array.isArray(entry.Resources) ? entry.Resources.map(String) : [];
    accepted.push({ bus: busOf(named), id, source: Source, detailType: DetailType, detail, resources });
    return { EventId: id };
  };

  const putEvents = (body: JsonBody): JsonBody => {
    const entries = Array.isArray(body.Entries) ? (body.Entries as JsonBody[]) : [];
    const bytes = entries.reduce((sum, entry) => sum + entryBytes(entry), 0);
    if (entries.length === 0 || entries.length > MAX_ENTRIES)
      throw new AwsJsonError(
        'ValidationException',
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${MAX_ENTRIES}`,
        { messageKey: 'message' },
      );
    if (bytes > MAX_BYTES)
      throw new AwsJsonError('ValidationException', `Total size of the entries in the request is over the limit.`, {
        messageKey: 'message',
      });
    const results = entries.map(answerEntry);
    return { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results };
  };

  const server = await startAwsJsonServer({
    targetPrefix: 'AWSEvents',
    jsonVersion: '1.1',
    operations: { PutEvents: putEvents },
  });
  return { ...server, accepted, refused };
}
