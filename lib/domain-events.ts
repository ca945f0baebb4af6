/**
 * The domain events bus: the customer's systems subscribe to it with their own
 * rules (docs/domain-events.md). Only the functions that publish may put
 * events on it, and only on it. An archive keeps what was published, so a
 * consumer that was down (or is new) can have it replayed.
 */
import { Duration } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { DOMAIN_EVENT_SOURCE } from '../lambdas/core/domain-events/catalogue';
import type { DomainEventsEnvironment } from '../lambdas/shared/domain-events-environment';

/** A function's environment contract less what `DomainEvents` sets on a publisher itself. */
export type EnvironmentBesidesEvents<E> = {
  // Remapped, not Exclude'd, so that an optional variable stays optional.
  [K in keyof E as K extends keyof DomainEventsEnvironment ? never : K]: string;
};

/**
 * How long the archive keeps published events unless told otherwise: at about twenty small events a
 * meeting, a month of 10,000 meetings is well under 1 GB.
 */
export const DEFAULT_EVENT_ARCHIVE_RETENTION_DAYS = 30;

export interface DomainEventsProps {
  /** The functions that publish: each gets EVENT_BUS_NAME and `events:PutEvents` on this bus. */
  publishers: LambdaFunction[];
  /**
   * How long the archive keeps published events for replay (default
   * DEFAULT_EVENT_ARCHIVE_RETENTION_DAYS). `Duration.days(0)` keeps them for ever.
   */
  archiveRetention?: Duration;
}

export class DomainEvents extends Construct {
  readonly bus: EventBus;

  constructor(scope: Construct, id: string, props: DomainEventsProps) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', { description: 'Domain events of the meeting pipeline' });
    this.bus.archive('Archive', {
      description: 'Every domain event published, for replay to a consumer',
      eventPattern: { source: [DOMAIN_EVENT_SOURCE] },
      retention: props.archiveRetention ?? Duration.days(DEFAULT_EVENT_ARCHIVE_RETENTION_DAYS),
    });
    for (const fn of props.publishers) this.grantPublish(fn);
  }

  /** The bus's name in the function's environment, and PutEvents on this bus only. */
  grantPublish(fn: LambdaFunction): void {
    const environment: DomainEventsEnvironment = { EVENT_BUS_NAME: this.bus.eventBusName };
    for (const [name, value] of Object.entries(environment)) fn.addEnvironment(name, value);
    this.bus.grantPutEventsTo(fn);
  }
}
