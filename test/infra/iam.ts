import type { Template } from 'aws-cdk-lib/assertions';

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

/** Policy statements attached to the role of the function whose POWERTOOLS_SERVICE_NAME is `service`. */
export function functionStatements(template: Template, service: string): Statement[] {
  const functions = Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { POWERTOOLS_SERVICE_NAME: service } } },
    }),
  );
  if (functions.length !== 1) throw new Error(`expected one ${service} function, found ${functions.length}`);
  const roleRef = functions[0]!.Properties.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleRef))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

export const actionsOf = (statements: Statement[]): string[] => statements.flatMap((s) => [s.Action].flat()).sort();

/** Wildcard actions on data services (e.g. `dynamodb:*`, `s3:*`, `sqs:*`); X-Ray needs `*` resources by design. */
export const wildcardDataActions = (statements: Statement[]): string[] =>
  actionsOf(statements).filter((action) => /^(dynamodb|s3|sqs|secretsmanager):.*\*/.test(action));
