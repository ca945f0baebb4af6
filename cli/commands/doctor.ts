/** `doctor`: after a deploy (or `npm run dev`), checks each thing a working deployment needs. */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { defineCommand, print, printJson, wholeNumber } from '../command';
import { allHold, checkLines } from '../doctor/check';
import { CliError, EXIT, localModeDownMessage, refusedLoopback, UsageError } from '../exit-codes';
import { findLocalEndpointsFile, readLocalEndpoints } from '../local-endpoints';
import { DEFAULT_STACK_NAME, describeStackOutputs } from '../stack-outputs';

export const doctor = defineCommand({
  words: ['doctor'],
  summary: `Check a deployment works: the signing secret and API key are set and well-formed, the service
answers with the key (and its scopes), a signed test webhook is accepted, queued, applied and in the
delivery log (then erased), the dead-letter queues and quarantine are empty, no alarm is in ALARM.
One line a check, with what to do when it fails; exit 0 only when all hold, 6 when one does not.`,
  usage: '[--wait SECONDS]',
  flags: '  --wait SECONDS          how long the test webhook may take to be applied (default 60)',
  options: { wait: { type: 'string' } },
  async run({ values, target }) {
    if (values.endpoint !== undefined)
      throw new UsageError('doctor checks a whole deployment: use --stack NAME or --local, not --endpoint');
    const timing = { webhookWaitMs: (wholeNumber('wait', values.wait, 1, 900) ?? 60) * 1000 };
    const resolved = await target();
    // Loaded here: the Secrets Manager and CloudWatch clients cost every other command's start-up nothing.
    const [{ runDoctor }, { localDoctor, stackDoctor }] = await Promise.all([
      import('../doctor/run-doctor'),
      import('../doctor/targets'),
    ]);
    const local = values.local === true || values['endpoints-file'] !== undefined;
    // Nothing listening where local mode wrote its endpoints: one line saying so, not a list of refused checks.
    if (local) {
      const refused = await fetch(resolved.apiBaseUrl, { method: 'HEAD' }).then(
        () => undefined,
        (error: unknown) => refusedLoopback(error),
      );
      if (refused !== undefined) throw new CliError(localModeDownMessage(refused));
    }
    const deps = local
      ? (() => {
          const file = values['endpoints-file'] ?? findLocalEndpointsFile();
          return localDoctor(resolved, file, readLocalEndpoints(file), timing);
        })()
      : stackDoctor(
          resolved,
          await describeStackOutputs(new CloudFormationClient({}), values.stack ?? DEFAULT_STACK_NAME),
          timing,
        );
    const results = await runDoctor(deps);
    if (values.json === true) printJson(results);
    else {
      print(`meeting-pipeline doctor: ${resolved.label}`);
      for (const line of checkLines(results)) print(line);
    }
    return allHold(results) ? EXIT.ok : EXIT.checkFailed;
  },
});
