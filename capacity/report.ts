/** The capacity report as a person reads it. */
import type { CapacityReport } from './model';
import { PRICES } from './prices';

const number = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const dollars = (n: number, digits = 5) => `$${n.toFixed(digits)}`;

export function formatReport(report: CapacityReport): string[] {
  const lines: string[] = [];
  const { rates } = report;
  lines.push(
    `${number(report.meetings)} concurrent one-hour meetings${report.aligned ? ', aligned on the hour' : ''}: ` +
      `${number(rates.perMeetingHour)} webhooks per meeting-hour, ${number(rates.steadyPerSecond, 1)}/s steady, ` +
      `${number(rates.peakPerSecond, 1)}/s at the peak`,
    '',
    'limits on the path (demand / capacity):',
  );
  for (const check of report.checks) {
    const headroom = check.demand === 0 ? '∞' : `${number(check.capacity / check.demand, 1)}×`;
    lines.push(
      `  ${check.holds ? 'ok  ' : 'FAIL'} ${check.limit}: ${number(check.demand, 1)} / ${number(check.capacity, 1)} ${check.unit} (headroom ${headroom})`,
    );
    if (!check.holds && check.fix !== undefined) lines.push(`       → ${check.fix}`);
  }
  lines.push('', 'DynamoDB write units per webhook (index copies included, from the items written):');
  for (const [kind, units] of Object.entries(report.writeUnitsByKind))
    lines.push(`  ${kind.padEnd(32)} ${number(units, 2)}`);
  lines.push('', `cost per meeting-hour, storage excluded (${PRICES.region} list prices of ${PRICES.recorded}):`);
  for (const line of report.costPerMeetingHour) {
    const share = report.totalPerMeetingHour === 0 ? 0 : (line.dollars / report.totalPerMeetingHour) * 100;
    lines.push(`  ${line.service.padEnd(28)} ${dollars(line.dollars)}  ${number(share, 0)}%`);
  }
  lines.push(`  ${'total'.padEnd(28)} ${dollars(report.totalPerMeetingHour)}`);
  lines.push('', 'fixed per month, whatever the traffic:');
  for (const line of report.fixedPerMonth) lines.push(`  ${line.service.padEnd(28)} ${dollars(line.dollars, 2)}`);
  lines.push(`  ${'total'.padEnd(28)} ${dollars(report.totalFixedPerMonth, 2)}`);
  lines.push(
    '',
    report.holds
      ? 'the configuration holds this load.'
      : 'the configuration does NOT hold this load: change what the FAIL lines say, then run this again.',
  );
  return lines;
}
