import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CALENDAR_API_ROUTES } from '../../lambdas/core/calendar/calendar-api';
import { SERVICES } from '../../lambdas/core/telemetry';
import { ICS_URL_CONTEXT_PURPOSE } from '../../lambdas/shared/kms-url-sealer';
import { actionsOf, functionStatements, type Statement } from './iam';
import { sharedTemplate } from './synth';

let template: Template;
beforeAll(() => {
  template = sharedTemplate({ calendarSyncEveryMinutes: 10 });
});

type Resource = { Type: string; Properties: Record<string, unknown> };
const resources = () => Object.values(template.toJSON().Resources as Record<string, Resource>);
const kmsStatements = (service: string) =>
  functionStatements(template, service).filter((s) => actionsOf([s]).some((a) => a.startsWith('kms:')));

describe('calendar feeds', () => {
  it('puts every calendar route on the HTTP API behind IAM', () => {
    const routes = resources()
      .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')
      .map((r) => r.Properties as { RouteKey: string; AuthorizationType: string });
    for (const routeKey of Object.values(CALENDAR_API_ROUTES))
      expect(routes.find((r) => r.RouteKey === routeKey)).toMatchObject({ AuthorizationType: 'AWS_IAM' });
  });

  it('syncs on the configured schedule', () => {
    const rules = resources().filter(
      (r) => r.Type === 'AWS::Events::Rule' && r.Properties.Description === 'Syncs every calendar feed',
    );
    expect(rules.map((r) => r.Properties.ScheduleExpression)).toEqual(['rate(10 minutes)']);
  });

  it('seals feed addresses with a rotated key, usable only under its encryption context', () => {
    const keys = resources().filter((r) => r.Type === 'AWS::KMS::Key');
    expect(keys.some((k) => k.Properties.EnableKeyRotation === true)).toBe(true);
    const api = kmsStatements(SERVICES.calendars);
    const sync = kmsStatements(SERVICES.calendarSync);
    expect(actionsOf(api)).toEqual(['kms:Decrypt', 'kms:Encrypt']);
    expect(actionsOf(sync)).toEqual(['kms:Decrypt']);
    for (const statement of [...api, ...sync] as Array<Statement & { Condition?: unknown }>)
      expect(statement.Condition).toEqual({
        StringEquals: { 'kms:EncryptionContext:purpose': ICS_URL_CONTEXT_PURPOSE },
      });
    // No other function may use the key.
    for (const service of [SERVICES.schedules, SERVICES.readApi, SERVICES.launchBot])
      expect(kmsStatements(service)).toEqual([]);
  });

  it('gives the calendar functions table items and launcher executions, no wildcard actions', () => {
    for (const service of [SERVICES.calendars, SERVICES.calendarSync]) {
      const actions = actionsOf(functionStatements(template, service));
      expect(actions).toEqual(
        expect.arrayContaining(['dynamodb:Query', 'states:StartExecution', 'states:StopExecution']),
      );
      expect(actions.filter((a) => a.endsWith('*'))).toEqual([]);
    }
  });
});
