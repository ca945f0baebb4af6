/**
 * The SQL the README shows for the lake is what the project promises runs on both engines: each
 * block passes the read-only guard, parses as Trino (Athena) SQL, and runs on DuckDB over the views.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TrinoSQL } from 'dt-sql-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { assertReadOnlySql } from '../../lambdas/core/lake/read-only-sql';
import { createDuckDbLakeEngine } from '../../local/lake/duckdb-lake-engine';
import { scratchDir } from '../fixtures/scratch';

const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
const blocks = [...readme.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => (match[1] ?? '').replace(/^ {3}/gm, ''));

const opened: Array<{ close(): void }> = [];
afterAll(() => {
  for (const engine of opened) engine.close();
});

describe("the README's lake SQL", () => {
  it('has the four questions', () => {
    expect(blocks).toHaveLength(4);
  });

  it.each(blocks.map((sql, i) => [i + 1, sql] as const))(
    'question %i is read-only, Trino and DuckDB SQL',
    async (_, sql) => {
      await expect(assertReadOnlySql(sql)).resolves.toBeUndefined();
      expect(new TrinoSQL().validate(sql)).toEqual([]);
      const engine = await createDuckDbLakeEngine({ root: scratchDir('readme-lake-') });
      opened.push(engine);
      await expect(engine.run({ sql, params: [] })).resolves.toMatchObject({ rows: [] });
    },
  );
});
