/**
 * The deployed stack's CloudFormation outputs the CLI reads (lib/meeting-pipeline-stack.ts
 * declares them), and reading them with DescribeStacks.
 */
import {
  type CloudFormationClient,
  DescribeStacksCommand,
  type DescribeStacksCommandOutput,
} from '@aws-sdk/client-cloudformation';
import { CliError, EXIT, isDeniedByAws } from './exit-codes';

export const DEFAULT_STACK_NAME = 'MeetingPipeline';

export { dlqOutputs, STACK_OUTPUTS } from '../lambdas/core/stack-outputs';

export type StackOutputs = Record<string, string>;

export async function describeStackOutputs(
  cloudFormation: Pick<CloudFormationClient, 'send'>,
  stackName: string,
): Promise<StackOutputs> {
  let answer: DescribeStacksCommandOutput;
  try {
    answer = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
  } catch (error) {
    const { name, message } = error as Error;
    if (name === 'ValidationError' && /does not exist/.test(message))
      throw new CliError(`No stack ${stackName} in this account and region (--stack, --region).`, EXIT.notFound);
    if (isDeniedByAws(name)) throw new CliError(`AWS refused DescribeStacks for ${stackName}: ${message}`, EXIT.denied);
    throw new CliError(`Could not read stack ${stackName}: ${message}`);
  }
  const outputs: StackOutputs = {};
  for (const output of answer.Stacks?.[0]?.Outputs ?? []) {
    if (output.OutputKey !== undefined && output.OutputValue !== undefined)
      outputs[output.OutputKey] = output.OutputValue;
  }
  return outputs;
}
