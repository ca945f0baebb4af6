/** The stack's alarms in ALARM, by name; each alarm's description in CloudWatch names its runbook. */
import { getJson } from '../api';
import { Show, useLoad } from '../load';

type AlarmsAnswer = { available: true; firing: string[] } | { available: false; reason: string };

export function FiringAlarms() {
  const [alarms] = useLoad('alarms', () => getJson<AlarmsAnswer>('/alarms'));
  return (
    <Show loaded={alarms} what="the alarms">
      {(answer) =>
        !answer.available ? (
          <p class="muted alarms">{answer.reason}.</p>
        ) : answer.firing.length === 0 ? (
          <p class="alarms">No alarm is in ALARM.</p>
        ) : (
          <>
            <p class="alarms error">{answer.firing.length} in ALARM (the runbook is in each alarm's description):</p>
            <ul>
              {answer.firing.map((name) => (
                <li key={name}>{name}</li>
              ))}
            </ul>
          </>
        )
      }
    </Show>
  );
}
