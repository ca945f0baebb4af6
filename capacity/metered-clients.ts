/**
 * Counting wrappers around the real AWS SDK clients the pipeline's code uses: the
 * code runs unchanged against the local emulators, and every request it makes is
 * counted the way AWS bills it (DynamoDB units from the items' real sizes, before
 * and after each write, index copies included), as is every line it logs.
 */
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { type Item, itemSize, readUnitsFor, type TableShape, toItem, writeCost } from './dynamo-units';

export interface DynamoMeter {
  readRequests: number;
  readUnits: number;
  writeRequests: number;
  tableWriteUnits: number;
  indexWriteUnits: Record<string, number>;
  conditionFailures: number;
  /** Index write units, by index and the partition key written under. */
  indexPartitions: Map<string, number>;
}

export interface Meter {
  dynamo: DynamoMeter;
  /** SQS requests by action (`SendMessage`, `ReceiveMessage`, ...). */
  sqs: Record<string, number>;
  /** S3 requests by action. */
  s3: Record<string, number>;
}

export function newMeter(): Meter {
  return {
    dynamo: {
      readRequests: 0,
      readUnits: 0,
      writeRequests: 0,
      tableWriteUnits: 0,
      indexWriteUnits: {},
      conditionFailures: 0,
      indexPartitions: new Map(),
    },
    sqs: {},
    s3: {},
  };
}

type Command = { constructor: { name: string }; input: Record<string, unknown> };
type Sender = (command: Command) => Promise<Record<string, unknown>>;

function wrap<C extends object>(client: C, send: (real: Sender, command: Command) => Promise<unknown>): C {
  const real = (client as unknown as { send: Sender }).send.bind(client) as Sender;
  const wrapped = Object.create(client) as C;
  (wrapped as unknown as { send: unknown }).send = (command: Command) => send(real, command);
  return wrapped;
}

const actionOf = (command: Command) => command.constructor.name.replace(/Command$/, '');

/** SQS or S3 requests by action. */
export function meteredByAction<C extends object>(client: C, counts: Record<string, number>): C {
  return wrap(client, (real, command) => {
    const action = actionOf(command);
    counts[action] = (counts[action] ?? 0) + 1;
    return real(command);
  });
}

const WRITES = new Set(['Put', 'PutItem', 'Update', 'UpdateItem', 'Delete', 'DeleteItem']);
const READS = new Set(['Get', 'GetItem', 'Query', 'Scan']);

/**
 * A DynamoDB client (document or plain: `marshalled` says which) whose writes are
 * priced by reading the item before and after each one with `raw`. Writes are made
 * one at a time, so the before and after belong to the same write.
 */
/** One write as it was priced. */
export interface PricedWrite {
  action: string;
  sk: string;
  bytesBefore: number;
  bytesAfter: number;
  tableUnits: number;
  indexUnits: number;
  conditionFailed: boolean;
}

export function meteredDynamo<C extends object>(
  client: C,
  options: {
    raw: DynamoDBClient;
    tableName: string;
    table: TableShape;
    marshalled: boolean;
    meter: DynamoMeter;
    /** Each write as it was priced (tests that look at single writes). */
    onWrite?: (write: PricedWrite) => void;
  },
): C {
  const { raw, table } = options;
  const asItem = (value: unknown): Item =>
    options.marshalled ? (value as Item) : toItem(value as Record<string, unknown>);
  const keyOf = (item: Item): Item => ({
    [table.partitionKey]: item[table.partitionKey] as Item[string],
    [table.sortKey]: item[table.sortKey] as Item[string],
  });
  const read = async (tableName: string, key: Item): Promise<Item | undefined> =>
    (await raw.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
  let queue: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  const priced = async (action: string, tableName: string, key: Item, perform: () => Promise<unknown>) => {
    const meter = options.meter;
    const before = await read(tableName, key);
    let failed = false;
    try {
      return await perform();
    } catch (error) {
      failed = (error as Error).name === 'ConditionalCheckFailedException';
      throw error;
    } finally {
      const after = failed ? before : await read(tableName, key);
      const cost = writeCost(table, before, after, failed);
      options.onWrite?.({
        action,
        sk: key[table.sortKey]?.S ?? '',
        bytesBefore: before === undefined ? 0 : itemSize(before),
        bytesAfter: after === undefined ? 0 : itemSize(after),
        tableUnits: cost.tableUnits,
        indexUnits: Object.values(cost.indexUnits).reduce((a, b) => a + b, 0),
        conditionFailed: failed,
      });
      meter.writeRequests++;
      meter.tableWriteUnits += cost.tableUnits;
      if (failed) meter.conditionFailures++;
      for (const [index, units] of Object.entries(cost.indexUnits))
        meter.indexWriteUnits[index] = (meter.indexWriteUnits[index] ?? 0) + units;
      for (const { index, partitionKey, units } of cost.indexPartitions) {
        const name = `${index} ${partitionKey}`;
        meter.indexPartitions.set(name, (meter.indexPartitions.get(name) ?? 0) + units);
      }
    }
  };

  return wrap(client, async (real, command) => {
    const action = actionOf(command);
    const input = command.input;
    const tableName = String(input.TableName ?? options.tableName);
    if (WRITES.has(action)) {
      const key = action.startsWith('Put') ? keyOf(asItem(input.Item)) : asItem(input.Key);
      return oneAtATime(() => priced(action, tableName, key, () => real(command)));
    }
    if (action.startsWith('BatchWrite')) {
      // Priced as the puts and deletes it is made of (unprocessed ones are sent again by the caller).
      const requests = Object.values(
        input.RequestItems as Record<string, Array<Record<string, { Item?: unknown; Key?: unknown }>>>,
      ).flat();
      return oneAtATime(async () => {
        const meter = options.meter;
        const result = await real(command);
        for (const request of requests) {
          const item = request.PutRequest?.Item ?? request.DeleteRequest?.Key;
          if (item === undefined) continue;
          meter.writeRequests++;
          meter.tableWriteUnits += 1;
        }
        return result;
      });
    }
    const result = await real(command);
    const meter = options.meter;
    if (READS.has(action)) {
      meter.readRequests++;
      const items = (result.Items ?? (result.Item === undefined ? [] : [result.Item])) as unknown[];
      const bytes = items.reduce<number>((sum, item) => sum + itemSize(asItem(item)), 0);
      meter.readUnits += readUnitsFor(bytes, input.ConsistentRead === true);
    }
    return result;
  });
}

/** Lines a function writes to standard output (its logs and EMF documents) while `run` runs. */
export interface LogMeter {
  lines: number;
  bytes: number;
  emfDocuments: number;
  emfBytes: number;
}

export const newLogMeter = (): LogMeter => ({ lines: 0, bytes: 0, emfDocuments: 0, emfBytes: 0 });

export async function capturingLogs<T>(meter: LogMeter, run: () => Promise<T>): Promise<T> {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const bytes = Buffer.byteLength(line, 'utf8') + 1;
      if (line.includes('"_aws"')) {
        meter.emfDocuments++;
        meter.emfBytes += bytes;
      } else {
        meter.lines++;
        meter.bytes += bytes;
      }
    }
    return true;
  }) as typeof process.stdout.write;
  try {
    return await run();
  } finally {
    process.stdout.write = write;
  }
}
