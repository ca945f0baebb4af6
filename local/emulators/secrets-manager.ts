/**
 * Secrets Manager's GetSecretValue on 127.0.0.1 for the real SDK client (JSON 1.1,
 * `secretsmanager.GetSecretValue`), over a fixed set of secrets. It finds a secret as AWS does: by
 * name, by full ARN, or by partial ARN (the ARN without the six random characters AWS appends to
 * the name); anything else is ResourceNotFoundException in AWS's words, so a wrong secret name in
 * a function's environment fails where it would in AWS. Only the AWSCURRENT version exists.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { AwsJsonError } from './aws-json/errors';
import { optionalText, requiredText } from './aws-json/members';
import { type AwsJsonServer, type JsonBody, startAwsJsonServer } from './aws-json/server';

export interface StandInSecret {
  name: string;
  value: string;
  /** Its ARN (default: one AWS would give it, random suffix and all). */
  arn?: string;
}

export interface SecretsManagerStandInOptions {
  region: string;
  account: string;
  secrets: StandInSecret[];
}

export interface SecretsManagerStandIn extends AwsJsonServer {
  /** The ARN of each secret, by name. */
  arns: Record<string, string>;
  /** The SecretId of each GetSecretValue answered or refused, in order. */
  requested: string[];
}

const CURRENT = 'AWSCURRENT';

const notFound = (detail = '') =>
  new AwsJsonError('ResourceNotFoundException', `Secrets Manager can't find the specified secret${detail}.`);

/** Six characters of the kind AWS appends to a secret's name in its ARN. */
const randomSuffix = () => randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 6);

interface Held {
  name: string;
  arn: string;
  value: string;
  versionId: string;
  created: number;
}

function find(secrets: Held[], secretId: string): Held | undefined {
  return (
    secrets.find((secret) => secret.name === secretId || secret.arn === secretId) ??
    // A partial ARN: the full ARN less its `-XXXXXX` suffix.
    secrets.find((secret) => secretId.startsWith('arn:') && secret.arn === `${secretId}-${secret.arn.slice(-6)}`)
  );
}

export async function startSecretsManagerStandIn(
  options: SecretsManagerStandInOptions,
): Promise<SecretsManagerStandIn> {
  const held: Held[] = options.secrets.map((secret) => ({
    name: secret.name,
    value: secret.value,
    arn:
      secret.arn ??
      `arn:aws:secretsmanager:${options.region}:${options.account}:secret:${secret.name}-${randomSuffix()}`,
    versionId: randomUUID(),
    created: Math.floor(Date.now() / 1000),
  }));
  const requested: string[] = [];
  const getSecretValue = (body: JsonBody): JsonBody => {
    const secretId = requiredText(body, 'SecretId');
    requested.push(secretId);
    const secret = find(held, secretId);
    if (secret === undefined) throw notFound();
    const stage = optionalText(body, 'VersionStage');
    const versionId = optionalText(body, 'VersionId');
    if (stage !== undefined && stage !== CURRENT) throw notFound(` value for staging label: ${stage}`);
    if (versionId !== undefined && versionId !== secret.versionId) throw notFound(` value for VersionId: ${versionId}`);
    return {
      ARN: secret.arn,
      Name: secret.name,
      VersionId: secret.versionId,
      SecretString: secret.value,
      VersionStages: [CURRENT],
      CreatedDate: secret.created,
    };
  };
  const server = await startAwsJsonServer({
    targetPrefix: 'secretsmanager',
    jsonVersion: '1.1',
    operations: { GetSecretValue: getSecretValue },
  });
  return { ...server, arns: Object.fromEntries(held.map((secret) => [secret.name, secret.arn])), requested };
}
