import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DOMAIN_EVENT_SOURCE } from '../../lambdas/core/domain-events/catalogue';
import { SERVICES } from '../../lambdas/core/telemetry';
import { functionStatements, type Statement } from './iam';
import { sharedTemplate } from './synth';

let template: Template;
let busId: string;
beforeAll(() => {
  template = sharedTemplate();
  // The stack's other bus takes calendar events (test/infra/bot-scheduler.test.ts).
  const buses = Object.keys(
    template.findResources('AWS::Events::EventBus', {
      Properties: { Description: 'Domain events of the meeting pipeline' },
    }),
  );
  expect(buses).toHaveLength(1);
  busId = buses[0]!;
});

/** The functions that publish domain events. */
const PUBLISHERS: readonly string[] = [
  SERVICES.processEvents,
  SERVICES.archive,
  SERVICES.reconciler,
  SERVICES.erase,
  SERVICES.launchBot,
  // calendar.disconnected, when a company calendar user or source is cut off.
  SERVICES.calendarSync,
  SERVICES.calendarUserSync,
];

const putsEvents = (s: Statement) => [s.Action].flat().includes('events:PutEvents');

describe('domain events bus', () => {
  it('is created with an archive of what the pipeline publishes, and its name and ARN are stack outputs', () => {
    template.hasResourceProperties('AWS::Events::Archive', {
      SourceArn: { 'Fn::GetAtt': [busId, 'Arn'] },
      EventPattern: { source: [DOMAIN_EVENT_SOURCE] },
      RetentionDays: 30,
    });
    template.hasOutput('EventBusName', { Value: { Ref: busId } });
    template.hasOutput('EventBusArn', { Value: { 'Fn::GetAtt': [busId, 'Arn'] } });
  });

  it('lets only the publishing functions put events, on this bus only, and tells them its name', () => {
    for (const service of PUBLISHERS) {
      const puts = functionStatements(template, service).filter(putsEvents);
      expect(puts, service).toEqual([
        expect.objectContaining({ Effect: 'Allow', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } }),
      ]);
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: { POWERTOOLS_SERVICE_NAME: service, EVENT_BUS_NAME: { Ref: busId } } },
      });
    }
    // No other policy in the stack grants PutEvents on anything.
    const grants = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).filter(putsEvents),
    );
    expect(grants).toHaveLength(PUBLISHERS.length);
    for (const service of Object.values(SERVICES).filter((s) => !PUBLISHERS.includes(s)))
      expect(functionStatements(template, service).filter(putsEvents), service).toEqual([]);
  });
});
