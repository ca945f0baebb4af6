/**
 * cdk-nag: the AwsSolutions and Serverless packs run on every synth (bin/app.ts)
 * and in tests. A finding we accept is acknowledged where the resource is made,
 * by its exact id, with the reason.
 */
import { Stack, Validations, type App, type CfnResource } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

export function addNagChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
}

export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  const pack = id.startsWith('Serverless-') ? 'Serverless' : 'AwsSolutions';
  Validations.of(scope).acknowledge({ id: `${pack}::${id}`, reason });
}

/** The IAM5 id cdk-nag gives a grant on `<resource>.Arn` + suffix, e.g. a bucket's objects under a prefix. */
export function wildcardResourceId(resource: IConstruct, suffix: string, attribute = '.Arn'): string {
  const cfn = resource.node.defaultChild as CfnResource;
  const logicalId = Stack.of(resource).resolve(Stack.of(resource).getLogicalId(cfn)) as string;
  return `AwsSolutions-IAM5[Resource::<${logicalId}${attribute}>${suffix}]`;
}
