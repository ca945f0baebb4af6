import type { AthenaClient } from '@aws-sdk/client-athena';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { failureDetails, internalErrorResponse } from '../core/api-error';
import { createAthenaLakeEngine } from '../core/lake/athena-engine';
import { lakeStats, searchTranscripts } from '../core/lake/lake-search';
import { answerLakeRoute, type LakeSearchRouteDependencies } from '../core/lake/lake-search-routes';
import type { Telemetry } from '../core/telemetry';
import type { LakeSearchEnvironment } from './environment';

export type LakeSearchHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** Wires the route core to Athena and the lake's questions; local mode passes its DuckDB engine instead. */
export function lakeSearchDependencies(
  env: LakeSearchEnvironment,
  clients: { athena: AthenaClient },
  telemetry: Telemetry,
): LakeSearchRouteDependencies {
  return {
    engine: createAthenaLakeEngine({
      athena: clients.athena,
      workGroup: env.LAKE_WORKGROUP,
      database: env.LAKE_DATABASE,
    }),
    questions: { searchTranscripts, lakeStats },
    telemetry,
    waitMs: env.QUERY_WAIT_MS,
  };
}

/** The lake routes in API Gateway's payload format 2.0; an unexpected failure is logged and answered 500 without details. */
export function createLakeSearchHandler(deps: LakeSearchRouteDependencies): LakeSearchHandler {
  return async (event) => {
    try {
      const { status, body } = await answerLakeRoute(event, deps);
      return {
        statusCode: status,
        headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
        body: JSON.stringify(body),
      };
    } catch (failure) {
      deps.telemetry.log.error('lake search request failed', {
        route: event.routeKey,
        request_id: event.requestContext.requestId,
        ...failureDetails(failure),
      });
      return internalErrorResponse(event.requestContext.requestId);
    }
  };
}
