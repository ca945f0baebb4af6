/**
 * What the console's pages may ask its server: the same API routes the CLI calls, under
 * `/api`, and nothing else. Each route is named by its contract (method and template), so a
 * page cannot reach a path the CLI would not, and a change is only one of the changing routes.
 */
import { CALENDAR_API_ROUTES } from '../../lambdas/core/calendar/calendar-api';
import { ERASE_API_ROUTES } from '../../lambdas/core/erase/erase-contract';
import { READ_API_ROUTES } from '../../lambdas/core/read/read-api-contract';

/** The console's own route for a recording's bytes (the read API gives a link; the server streams it). */
export const RECORDING_MEDIA_ROUTE = 'GET /meetings/{bot_id}/recording/media';

/** `schedule cancel`: the schedule API's own address (the stack's ScheduleApiUrl output), not the API base. */
export const SCHEDULE_CANCEL_ROUTE = 'DELETE /schedules/{id}';

/** Routes passed through to the API as they are: reads, then the changes (refused with --read-only). */
export const PASSED_READS: readonly string[] = [
  ...Object.values(READ_API_ROUTES),
  CALENDAR_API_ROUTES.list,
  CALENDAR_API_ROUTES.get,
  CALENDAR_API_ROUTES.preview,
  CALENDAR_API_ROUTES.schedules,
];
export const PASSED_CHANGES: readonly string[] = [
  ERASE_API_ROUTES.eraseMeeting,
  CALENDAR_API_ROUTES.sync,
  SCHEDULE_CANCEL_ROUTE,
];

export interface MatchedRoute {
  route: string;
  params: Record<string, string>;
}

function compile(route: string): { method: string; pattern: RegExp; names: string[] } {
  const [method = '', path = ''] = route.split(' ');
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      const name = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (name === undefined) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([^/]+)';
    })
    .join('/');
  return { method, pattern: new RegExp(`^${source}$`), names };
}

/** The route among `routes` a request's method and path (below /api) is, with its decoded parameters. */
export function matchRoute(routes: readonly string[], method: string, path: string): MatchedRoute | undefined {
  for (const route of routes) {
    const compiled = compile(route);
    if (compiled.method !== method) continue;
    const match = compiled.pattern.exec(path);
    if (match === null) continue;
    const params: Record<string, string> = {};
    try {
      compiled.names.forEach((name, i) => {
        params[name] = decodeURIComponent(match[i + 1] ?? '');
      });
    } catch {
      // A malformed %-escape is no route.
      return undefined;
    }
    return { route, params };
  }
  return undefined;
}
