import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, functionStatements, wildcardDataActions } from './iam';
import { sharedTemplate } from './synth';

let template: Template;
beforeAll(() => {
  template = sharedTemplate();
});

describe('reconciler', () => {
  it('runs every 5 minutes, one run at a time', () => {
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED' });
    const [fn] = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'reconciler' } } },
      }),
    );
    expect(fn?.Properties).toMatchObject({ ReservedConcurrentExecutions: 1, Timeout: 300 });
  });

  it("queries the state index and meetings' own items only, and holds no wildcard data actions", () => {
    const statements = functionStatements(template, 'reconciler');
    expect(wildcardDataActions(statements)).toEqual([]);
    const queries = statements.filter((s) => actionsOf([s]).includes('dynamodb:Query')).map((s) => JSON.stringify(s));
    expect(queries).toHaveLength(2);
    expect(queries.filter((query) => query.includes('/index/gsi2'))).toHaveLength(1);
    // The other: a meeting's state changes, for its outcome, held to the meetings' partitions.
    expect(queries.find((query) => !query.includes('/index/'))).toContain('"dynamodb:LeadingKeys":["BOT#*"]');
  });
});
