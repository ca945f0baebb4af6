/**
 * The MCP server's lake engine opens on the first lake question, once; an engine that cannot be
 * opened fails that question with its reason and is tried again on the next; closing closes what
 * was opened.
 */
import { describe, expect, it } from 'vitest';
import { type ClosableEngine, lazyLakeEngine } from '../../cli/mcp/lazy-lake-engine';
import type { LakeResult } from '../../lambdas/core/lake/lake-engine';

const result: LakeResult = {
  columns: ['n'],
  rows: [[1]],
  truncated: false,
  bytesScanned: 10,
  engine: 'duckdb',
  elapsedMs: 1,
};

function opener(failures: number) {
  const state = { opens: 0, closes: 0, runs: 0 };
  const open = async (): Promise<ClosableEngine> => {
    state.opens += 1;
    if (state.opens <= failures) throw new Error('no lake mirror yet: run npm run dev');
    return {
      run: async () => {
        state.runs += 1;
        return result;
      },
      close: () => {
        state.closes += 1;
      },
    };
  };
  return { state, open };
}

const query = { sql: 'SELECT 1 AS n', params: [] };

describe('lazyLakeEngine', () => {
  it('opens nothing until asked, then opens once for every question', async () => {
    const { state, open } = opener(0);
    const engine = lazyLakeEngine(open);
    expect(state.opens).toBe(0);
    await Promise.all([engine.run(query), engine.run(query)]);
    await engine.run(query);
    expect(state).toMatchObject({ opens: 1, runs: 3 });
    engine.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.closes).toBe(1);
    await expect(engine.run(query)).rejects.toThrow('closed');
  });

  it('fails a question with the reason the engine could not open, and tries again on the next', async () => {
    const { state, open } = opener(1);
    const engine = lazyLakeEngine(open);
    await expect(engine.run(query)).rejects.toThrow('no lake mirror yet: run npm run dev');
    await expect(engine.run(query)).resolves.toEqual(result);
    expect(state).toMatchObject({ opens: 2, runs: 1 });
  });

  it('says so when asked to resume on an engine that never leaves a query running', async () => {
    const engine = lazyLakeEngine(opener(0).open);
    await expect(engine.resume?.('q-1')).rejects.toThrow('never leaves a query running (q-1)');
  });

  it('closing before any question opens nothing', async () => {
    const { state, open } = opener(0);
    lazyLakeEngine(open).close();
    expect(state.opens).toBe(0);
  });
});
