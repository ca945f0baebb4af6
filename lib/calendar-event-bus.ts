/**
 * The calendar events bus: the one way into scheduling besides the IAM-authorized schedule API.
 * A dedicated bus, not the account's default one, because any principal allowed `events:PutEvents`
 * on the default bus (most integrations and many admin roles are) could otherwise send bots to
 * any meeting. Its resource policy admits the producers the operator names
 * (`calendarEventProducers`) and denies everyone else, same-account principals with a broad IAM
 * policy included: an explicit deny in a resource policy holds against any allow.
 *
 * The bus holds no data (EventBridge delivers and forgets), so it is deleted with the stack; its
 * name is fixed by the stack's, so a producer's configuration survives a redeploy.
 */
import { Stack } from 'aws-cdk-lib';
import { type CfnEventBus, EventBus } from 'aws-cdk-lib/aws-events';
import { Construct } from 'constructs';
import { CALENDAR_EVENT_SOURCE } from '../lambdas/core/schedule/calendar-events';

export interface CalendarEventBusProps {
  /** Account ids or IAM role/user ARNs (lib/config.ts `calendarEventProducers`). */
  producers: readonly string[];
}

const isAccountId = (producer: string) => /^\d{12}$/.test(producer);

/** The bus's resource policy: PutEvents for the named producers (calendar events only), denied to anyone else. */
export function calendarBusPolicy(busArn: string, producers: readonly string[]): Record<string, unknown> {
  const accounts = producers.filter(isAccountId);
  const principals = producers.filter((producer) => !isAccountId(producer));
  const notNamed = {
    ...(principals.length > 0 && { 'aws:PrincipalArn': principals }),
    ...(accounts.length > 0 && { 'aws:PrincipalAccount': accounts }),
  };
  const allow = {
    Sid: 'NamedCalendarEventProducers',
    Effect: 'Allow',
    Principal: { AWS: [...producers] },
    Action: 'events:PutEvents',
    Resource: busArn,
    Condition: { StringEquals: { 'events:source': CALENDAR_EVENT_SOURCE } },
  };
  // Both keys in one operator are ANDed: denied unless the caller is a named principal or in a named account.
  const denyOthers = {
    Sid: 'NoOtherCalendarEventProducers',
    Effect: 'Deny',
    Principal: '*',
    Action: 'events:PutEvents',
    Resource: busArn,
    ...(producers.length > 0 && { Condition: { StringNotEquals: notNamed } }),
  };
  return { Version: '2012-10-17', Statement: producers.length > 0 ? [allow, denyOthers] : [denyOthers] };
}

export class CalendarEventBus extends Construct {
  readonly bus: EventBus;

  constructor(scope: Construct, id: string, props: CalendarEventBusProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const eventBusName = `${stack.stackName}-calendar-events`;
    this.bus = new EventBus(this, 'Bus', {
      eventBusName,
      description: 'Calendar events (source meeting-pipeline.calendar) from the named producers only',
    });
    // Built from the name, not the bus's own ARN attribute: the policy is a property of the bus itself.
    const busArn = stack.formatArn({ service: 'events', resource: 'event-bus', resourceName: eventBusName });
    (this.bus.node.defaultChild as CfnEventBus).policy = calendarBusPolicy(busArn, props.producers);
  }
}
