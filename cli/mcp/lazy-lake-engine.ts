/**
 * The MCP server's lake engine for a CLI target, opened on the first lake question rather than at
 * start: the server comes up at once (DuckDB and Athena's SDK load only when a lake tool is used),
 * and an engine that cannot be opened (no lake mirror yet, no stack outputs) fails that tool call
 * with the reason, then is tried again on the next call instead of failing the server for good.
 */
import type { LakeEngine, LakeQuery, LakeResult, LakeRunOptions } from '../../lambdas/core/lake/lake-engine';

export type ClosableEngine = LakeEngine & { close(): void };

export function lazyLakeEngine(open: () => Promise<ClosableEngine>): ClosableEngine {
  let opening: Promise<ClosableEngine> | undefined;
  let closed = false;
  const engine = (): Promise<ClosableEngine> => {
    if (closed) return Promise.reject(new Error('the lake engine was closed'));
    opening ??= open().catch((error: unknown) => {
      opening = undefined;
      throw error;
    });
    return opening;
  };
  return {
    run: async (query: LakeQuery, options?: LakeRunOptions): Promise<LakeResult> =>
      (await engine()).run(query, options),
    async resume(queryId: string, options?: LakeRunOptions): Promise<LakeResult> {
      const opened = await engine();
      if (opened.resume === undefined) throw new Error(`this lake engine never leaves a query running (${queryId})`);
      return opened.resume(queryId, options);
    },
    close() {
      closed = true;
      void opening?.then(
        (opened) => opened.close(),
        () => undefined,
      );
    },
  };
}
