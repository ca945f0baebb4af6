/** The meetings table, built from the layout the code uses (lambdas/core/store/table-layout.ts). */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { GSI, TABLE_KEYS, TTL_ATTRIBUTE } from '../lambdas/core/store/table-layout';

export interface MeetingsTableProps {
  removalPolicy: RemovalPolicy;
}

export class MeetingsTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: MeetingsTableProps) {
    super(scope, id);
    const key = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new TableV2(this, 'Table', {
      partitionKey: key(TABLE_KEYS.partitionKey),
      sortKey: key(TABLE_KEYS.sortKey),
      globalSecondaryIndexes: Object.values(GSI).map((index) => ({
        indexName: index.name,
        partitionKey: key(index.partitionKey),
        sortKey: key(index.sortKey),
      })),
      billing: Billing.onDemand(),
      encryption: TableEncryptionV2.awsManagedKey(),
      timeToLiveAttribute: TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy: props.removalPolicy,
    });
  }
}
