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

  it('queries only the state index, and holds no wildcard data actions', () => {
    const statements = functionStatements(template, 'reconciler');
    expect(wildcardDataActions(statements)).toEqual([]);
    const query = statements.find((s) => actionsOf([s]).includes('dynamodb:Query'));
    expect(JSON.stringify(query?.Resource)).toContain('/index/gsi2');
  });
});
