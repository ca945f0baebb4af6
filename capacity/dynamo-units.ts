/**
 * DynamoDB's billing arithmetic, applied to items as they really are: an item's
 * size (attribute names plus values), the write units a write consumes on the
 * table, and those its index copies consume (DynamoDB developer guide,
 * "Capacity unit consumption" and "Provisioned throughput considerations for
 * global secondary indexes").
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export type Item = Record<string, AttributeValue>;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** About one byte per two significant digits, plus one. */
function numberSize(text: string): number {
  const digits = text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
  return Math.ceil(Math.max(1, digits) / 2) + 1;
}

export function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, s) => sum + utf8(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, b) => sum + b.length, 0);
  // Lists and maps: 3 bytes of overhead, and a byte per element.
  if (value.L !== undefined) return 3 + value.L.reduce((sum, v) => sum + valueSize(v) + 1, 0);
  if (value.M !== undefined)
    return 3 + Object.entries(value.M).reduce((sum, [name, v]) => sum + utf8(name) + valueSize(v) + 1, 0);
  throw new Error(`unknown attribute value ${JSON.stringify(value)}`);
}

export function itemSize(item: Item): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0);
}

/** Write units for an item of this size: one per KB started, at least one. */
export const writeUnitsFor = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));
/** Read units for this many bytes read strongly consistent (half for eventually consistent). */
export const readUnitsFor = (bytes: number, consistent: boolean): number =>
  Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);

export interface IndexShape {
  name: string;
  partitionKey: string;
  sortKey?: string;
  /** ALL, KEYS_ONLY, or the attributes an INCLUDE projection adds. */
  projection: 'ALL' | 'KEYS_ONLY' | string[];
}

export interface TableShape {
  partitionKey: string;
  sortKey: string;
  indexes: IndexShape[];
}

const inIndex = (item: Item | undefined, index: IndexShape): item is Item =>
  item !== undefined &&
  item[index.partitionKey] !== undefined &&
  (index.sortKey === undefined || item[index.sortKey] !== undefined);

/** The index's copy of an item: table keys, index keys and the projected attributes. */
function indexEntry(item: Item, table: TableShape, index: IndexShape): Item {
  if (index.projection === 'ALL') return item;
  const names = [
    table.partitionKey,
    table.sortKey,
    index.partitionKey,
    ...(index.sortKey === undefined ? [] : [index.sortKey]),
    ...(index.projection === 'KEYS_ONLY' ? [] : index.projection),
  ];
  return Object.fromEntries(names.flatMap((name) => (item[name] === undefined ? [] : [[name, item[name]]])));
}

const sameValue = (a: AttributeValue | undefined, b: AttributeValue | undefined) =>
  JSON.stringify(a) === JSON.stringify(b);
const sameEntry = (a: Item, b: Item) =>
  Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((name) => sameValue(a[name], b[name]));

export interface WriteCost {
  tableUnits: number;
  /** Units by index name; an index the write does not touch is absent. */
  indexUnits: Record<string, number>;
  /** Index partition keys the write put an entry under (for hot-key analysis). */
  indexPartitions: Array<{ index: string; partitionKey: string; units: number }>;
}

/**
 * What one write consumed, from the item before and after it. A write whose
 * condition failed still consumes the units of the item's size on the table,
 * and nothing on the indexes.
 */
export function writeCost(
  table: TableShape,
  before: Item | undefined,
  after: Item | undefined,
  conditionFailed: boolean,
): WriteCost {
  const sizeOf = (item: Item | undefined) => (item === undefined ? 0 : itemSize(item));
  const tableUnits = writeUnitsFor(conditionFailed ? sizeOf(before) : Math.max(sizeOf(before), sizeOf(after)));
  const cost: WriteCost = { tableUnits, indexUnits: {}, indexPartitions: [] };
  if (conditionFailed) return cost;
  for (const index of table.indexes) {
    const was = inIndex(before, index) ? indexEntry(before, table, index) : undefined;
    const is = inIndex(after, index) ? indexEntry(after, table, index) : undefined;
    let units = 0;
    if (was === undefined && is !== undefined) units = writeUnitsFor(itemSize(is));
    else if (was !== undefined && is === undefined) units = writeUnitsFor(itemSize(was));
    else if (was !== undefined && is !== undefined) {
      const moved =
        !sameValue(was[index.partitionKey], is[index.partitionKey]) ||
        (index.sortKey !== undefined && !sameValue(was[index.sortKey], is[index.sortKey]));
      // A changed index key is a delete and a put; an entry that did not change is not written.
      if (moved) units = writeUnitsFor(itemSize(was)) + writeUnitsFor(itemSize(is));
      else if (!sameEntry(was, is)) units = writeUnitsFor(Math.max(itemSize(was), itemSize(is)));
    }
    if (units > 0) cost.indexUnits[index.name] = units;
    const partition = is?.[index.partitionKey]?.S;
    if (partition !== undefined && units > 0)
      cost.indexPartitions.push({ index: index.name, partitionKey: partition, units });
  }
  return cost;
}

/** A JavaScript value as the document client marshals it (enough for sizes: strings, numbers, sets, nesting). */
export function toAttributeValue(value: unknown): AttributeValue {
  if (value === null || value === undefined) return { NULL: true };
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number' || typeof value === 'bigint') return { N: String(value) };
  if (typeof value === 'boolean') return { BOOL: value };
  if (value instanceof Uint8Array) return { B: value };
  if (value instanceof Set) {
    const members = [...value];
    if (members.every((m) => typeof m === 'number')) return { NS: members.map(String) };
    if (members.every((m) => m instanceof Uint8Array)) return { BS: members as Uint8Array[] };
    return { SS: members.map(String) };
  }
  if (Array.isArray(value)) return { L: value.map(toAttributeValue) };
  if (typeof value === 'object')
    return {
      M: Object.fromEntries(
        Object.entries(value as Record<string, unknown>)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, toAttributeValue(v)]),
      ),
    };
  throw new Error(`cannot size a ${typeof value}`);
}

export const toItem = (value: Record<string, unknown>): Item => (toAttributeValue(value) as { M: Item }).M;
