/** Paged answers (`next_cursor`): one page, or every page with `--all`. */

export interface Page<T> {
  items: T[];
  /** The same items as the API sent them, for `--json`. */
  raw: unknown[];
  next: string | null;
}

export async function readPages<T>(
  cursor: string | undefined,
  all: boolean,
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
): Promise<Page<T>> {
  const result: Page<T> = { items: [], raw: [], next: null };
  let next = cursor;
  do {
    const page = await fetchPage(next);
    result.items.push(...page.items);
    result.raw.push(...page.raw);
    result.next = page.next;
    next = page.next ?? undefined;
  } while (all && next !== undefined);
  return result;
}

/** The stderr line under a table: how many, and how to get more. */
export function pageFooter(count: number, noun: [one: string, many: string], next: string | null): string {
  return `${count} ${count === 1 ? noun[0] : noun[1]}${next === null ? '' : `; more with --cursor ${next} (or --all)`}\n`;
}
