/** Where `doctor --stack` finds what it checks: the stack's outputs, with the settings' defaults for an older stack. */
import { describe, expect, it } from 'vitest';
import { DOCTOR_BOT_PREFIX } from '../../cli/doctor/run-doctor';
import { stackDoctor } from '../../cli/doctor/targets';
import { DEFAULT_STACK_NAME, dlqOutputs, STACK_OUTPUTS } from '../../cli/stack-outputs';
import { targetFromStackOutputs } from '../../cli/target';
import { DEAD_LETTER_QUEUE_OUTPUTS } from '../../lambdas/core/stack-outputs';
import { parseConfig } from '../../lib/config';

const signing = { region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } };
const base = {
  [STACK_OUTPUTS.apiUrl]: 'https://api.example.com',
  [STACK_OUTPUTS.webhookUrl]: 'https://api.example.com/webhooks',
  [STACK_OUTPUTS.payloadBucket]: 'payloads',
  [dlqOutputs(DEAD_LETTER_QUEUE_OUTPUTS.events).url]: 'https://sqs.eu-west-1.amazonaws.com/1/events-dlq',
};
const timing = { webhookWaitMs: 60_000 };

describe('doctor --stack', () => {
  it('checks the secrets, service, topic and queues the stack outputs name', () => {
    const outputs = {
      ...base,
      [STACK_OUTPUTS.signingSecretName]: 'team/signing',
      [STACK_OUTPUTS.apiKeySecretName]: 'team/api-key',
      [STACK_OUTPUTS.upstreamBaseUrl]: 'https://service.example.com/api/v1/',
      [STACK_OUTPUTS.alarmTopicArn]: 'arn:aws:sns:eu-west-1:1:alarms',
    };
    const deps = stackDoctor(targetFromStackOutputs(DEFAULT_STACK_NAME, outputs, signing), outputs, timing);
    expect(deps.signingSecret.name).toBe('team/signing');
    expect(deps.apiKey.name).toBe('team/api-key');
    expect(deps.serviceApiUrl).toBe('https://service.example.com/api/v1/');
    expect(deps.webhookUrl).toBe('https://api.example.com/webhooks');
    expect(deps.alarms).toMatchObject({ topicArn: 'arn:aws:sns:eu-west-1:1:alarms' });
    expect(deps.deadLetterQueues).toEqual([
      expect.objectContaining({ name: 'events', url: 'https://sqs.eu-west-1.amazonaws.com/1/events-dlq' }),
    ]);
    expect(deps.payloadBucket).toBe('payloads');
    expect(deps.botId).toMatch(new RegExp(`^${DOCTOR_BOT_PREFIX}[0-9a-f]{12}$`));
  });

  it("falls back to the settings' default secret names for a stack from before it output them, and says the alarms need a redeploy", () => {
    const deps = stackDoctor(targetFromStackOutputs(DEFAULT_STACK_NAME, base, signing), base, timing);
    const defaults = parseConfig({ upstreamBaseUrl: 'https://service.example.com/api/v1/' });
    expect(deps.signingSecret.name).toBe(defaults.signingSecretName);
    expect(deps.apiKey.name).toBe(defaults.apiKeySecretName);
    expect(deps.serviceApiUrl).toBeUndefined();
    expect(deps.alarms).toEqual({ skip: 'the stack has no AlarmTopicArn output: deploy the current version' });
  });
});
