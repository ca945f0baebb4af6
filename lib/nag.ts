/**
 * cdk-nag: the AwsSolutions and Serverless packs run on every synth (bin/app.ts)
 * and in tests. A finding we accept is acknowledged where the resource is made,
 * by its exact id, with the reason.
 */
import { type App, type CfnResource, Stack, Token, Validations } from 'aws-cdk-lib';
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

/** The IAM5 id cdk-nag gives a grant on all executions of a state machine (CDK's grantExecution). */
export function executionsWildcardId(stateMachine: IConstruct): string {
  const cfn = stateMachine.node.defaultChild as CfnResource;
  const logicalId = Stack.of(stateMachine).resolve(Stack.of(stateMachine).getLogicalId(cfn)) as string;
  const name = `{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${logicalId}"}]}]}`;
  // cdk-nag writes concrete environment values as they are and unresolved ones as <AWS::…>.
  const stack = Stack.of(stateMachine);
  const shown = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<${pseudo}>` : value);
  const arn = `arn:${shown(stack.partition, 'AWS::Partition')}:states:${shown(stack.region, 'AWS::Region')}:${shown(stack.account, 'AWS::AccountId')}`;
  return `AwsSolutions-IAM5[Resource::${arn}:execution:${name}:*]`;
}
