/** DynamoDB's billing arithmetic as the capacity tool applies it, on items worked out by hand. */
import { describe, expect, it } from 'vitest';
import { itemSize, type TableShape, toItem, writeCost } from '../../capacity/dynamo-units';

const table: TableShape = {
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [
    { name: 'all', partitionKey: 'apk', sortKey: 'ask', projection: 'ALL' },
    { name: 'keys', partitionKey: 'kpk', sortKey: 'ksk', projection: 'KEYS_ONLY' },
  ],
};

describe('item size', () => {
  it('adds attribute names and values: strings by UTF-8 bytes, numbers by significant digits', () => {
    // "pk"(2)+"BOT#1"(5) + "sk"(2)+"UTT#1"(5) + "text"(4)+"héllo"(6) + "n"(1)+12345 (3 pairs → 3+1)
    expect(itemSize(toItem({ pk: 'BOT#1', sk: 'UTT#1', text: 'héllo', n: 12345 }))).toBe(2 + 5 + 2 + 5 + 4 + 6 + 1 + 4);
  });

  it('counts 3 bytes for a list or map and one per element, 1 for booleans and null, sets by their members', () => {
    expect(itemSize(toItem({ m: { a: 'x' } }))).toBe(1 + 3 + (1 + 1 + 1));
    expect(itemSize(toItem({ l: ['ab', true, null] }))).toBe(1 + 3 + (2 + 1) + (1 + 1) + (1 + 1));
    expect(itemSize(toItem({ s: new Set(['k1', 'k22']) }))).toBe(1 + 2 + 3);
  });
});

describe('write units', () => {
  const big = 'x'.repeat(1500);

  it('charges a put by the larger of the item before and after, per KB started', () => {
    const after = toItem({ pk: 'a', sk: 'b', body: big });
    expect(writeCost(table, undefined, after, false)).toEqual({ tableUnits: 2, indexUnits: {}, indexPartitions: [] });
    const small = toItem({ pk: 'a', sk: 'b' });
    expect(writeCost(table, after, small, false).tableUnits).toBe(2);
  });

  it('charges a failed condition the existing item, and nothing on the indexes', () => {
    const before = toItem({ pk: 'a', sk: 'b', apk: 'P', ask: 'S', body: big });
    expect(writeCost(table, before, before, true)).toEqual({ tableUnits: 2, indexUnits: {}, indexPartitions: [] });
  });

  it('writes an ALL index copy of the whole item, a KEYS_ONLY copy of the keys only', () => {
    const after = toItem({ pk: 'a', sk: 'b', apk: 'P', ask: 'S', kpk: 'K', ksk: 'L', body: big });
    const cost = writeCost(table, undefined, after, false);
    expect(cost.indexUnits).toEqual({ all: 2, keys: 1 });
    expect(cost.indexPartitions).toEqual([
      { index: 'all', partitionKey: 'P', units: 2 },
      { index: 'keys', partitionKey: 'K', units: 1 },
    ]);
  });

  it('a changed index key is a delete and a put; an unchanged projection is no index write', () => {
    const before = toItem({ pk: 'a', sk: 'b', apk: 'P1', ask: 'S', kpk: 'K', ksk: 'L', n: 1 });
    const moved = toItem({ pk: 'a', sk: 'b', apk: 'P2', ask: 'S', kpk: 'K', ksk: 'L', n: 2 });
    // `all` moved (delete + put); `keys` projects nothing that changed.
    expect(writeCost(table, before, moved, false).indexUnits).toEqual({ all: 2 });
    const left = toItem({ pk: 'a', sk: 'b', n: 2 });
    expect(writeCost(table, before, left, false).indexUnits).toEqual({ all: 1, keys: 1 });
  });
});
