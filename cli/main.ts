/** `meeting-pipeline <command>`: finds the command by its words, runs it, turns errors into exit codes. */
import { type Command, TARGET_HELP } from './command';
import { calendarsDelete, calendarsGet, calendarsList, calendarsPut, calendarsSync } from './commands/calendars';
import { consoleCommand } from './commands/console';
import { dlqList, dlqRedrive } from './commands/dlq';
import { doctor } from './commands/doctor';
import { erase } from './commands/erase';
import { events } from './commands/events';
import { meetingsList, meetingsParticipants, meetingsShow, meetingsWhy } from './commands/meetings';
import { quarantineList, quarantineRedrive } from './commands/quarantine';
import { query } from './commands/query';
import { recording } from './commands/recording';
import { scheduleCancel, scheduleGet, schedulePut } from './commands/schedule';
import { search } from './commands/search';
import { transcript } from './commands/transcript';
import {
  CliError,
  EXIT,
  EXIT_CODES_HELP,
  type ExitCode,
  isDeniedByAws,
  localModeDownMessage,
  refusedLoopback,
} from './exit-codes';
import { COMMON_OPTIONS, closest, didYouMean, wordsWithoutCommonFlags } from './flags';
import { mcp } from './mcp/command';
import { helpWidth, wrap, writeErr, writeOut } from './terminal';

export const COMMANDS: Command[] = [
  meetingsList,
  meetingsShow,
  meetingsParticipants,
  meetingsWhy,
  transcript,
  recording,
  events,
  search,
  query,
  erase,
  mcp,
  consoleCommand,
  schedulePut,
  scheduleGet,
  scheduleCancel,
  calendarsList,
  calendarsPut,
  calendarsGet,
  calendarsSync,
  calendarsDelete,
  dlqList,
  dlqRedrive,
  quarantineList,
  quarantineRedrive,
  doctor,
];

function overview(commands: Command[], heading: string): string {
  const width = Math.max(...commands.map((c) => c.words.join(' ').length));
  const indent = ' '.repeat(width + 4);
  return [
    heading,
    '',
    'commands:',
    // Each summary whole, wrapped under its own column.
    ...commands.map((c) =>
      wrap(c.summary, helpWidth() - indent.length)
        .map((line, i) => (i === 0 ? `  ${c.words.join(' ').padEnd(width)}  ${line}` : `${indent}${line}`.trimEnd()))
        .join('\n'),
    ),
    '',
    "`meeting-pipeline <command> --help` tells a command's arguments and flags; every command takes",
    '--json (the API answer as JSON on stdout, for scripts). Tables and JSON go to stdout, errors to',
    'stderr. The target flags, --json and --help may stand anywhere on the line.',
    '',
    TARGET_HELP,
    '',
    EXIT_CODES_HELP,
  ].join('\n');
}

const HEADING = `usage: meeting-pipeline <command> [arguments] [flags]

Reads meetings, transcripts, recordings and delivery logs from the read API, searches and queries
every meeting in the meetings lake, serves them to AI assistants over MCP, erases meetings, manages
schedules and calendars, and re-drives the dead-letter queues and the quarantine, of a deployed
stack or of local mode.`;

export async function main(argv: string[]): Promise<ExitCode> {
  // The command is named by the words left once the common flags (--local, --json…) are taken out.
  const words = wordsWithoutCommonFlags(argv);
  const first = words[0];
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (first === undefined || first === 'help') {
    const asked = wantsHelp || first === 'help';
    // Asked for, the overview is the answer (stdout); a line without a command is a mistake (stderr).
    (asked ? writeOut : writeErr)(`${overview(COMMANDS, HEADING)}\n`);
    return asked ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS.find((c) => c.words.every((word, i) => words[i] === word));
  if (command === undefined) {
    if (first.startsWith('-')) {
      const flags = Object.keys(COMMON_OPTIONS).map((name) => `--${name}`);
      writeErr(
        `meeting-pipeline: unknown option ${first}${didYouMean(closest(first.split('=')[0] ?? first, flags))}; a command's own flags go after its words (meeting-pipeline --help lists the commands)\n`,
      );
      return EXIT.usage;
    }
    const group = COMMANDS.filter((c) => c.words[0] === first);
    if (group.length > 0) {
      const second = words[1];
      const near =
        second === undefined
          ? undefined
          : closest(
              second,
              group.map((c) => c.words[1] ?? ''),
            );
      if (wantsHelp) {
        writeOut(`${overview(group, `usage: meeting-pipeline ${first} <command>`)}\n`);
        return EXIT.ok;
      }
      // One line: what was wrong, the closest command, and the ones there are (--help shows them whole).
      const known = group.map((c) => c.words[1] ?? '').join(', ');
      const problem =
        second === undefined
          ? 'which one?'
          : `no ${second}${didYouMean(near === undefined ? undefined : `${first} ${near}`)};`;
      writeErr(`meeting-pipeline ${first}: ${problem} one of ${known} (meeting-pipeline ${first} --help)\n`);
      return EXIT.usage;
    }
    const near = closest(first, new Set(COMMANDS.map((c) => c.words[0] ?? '')));
    writeErr(
      `meeting-pipeline: no command ${JSON.stringify(first)}${didYouMean(near)} (meeting-pipeline --help lists them)\n`,
    );
    return EXIT.usage;
  }
  try {
    return (await command.run(argv)) ?? EXIT.ok;
  } catch (error) {
    if (error instanceof CliError) {
      const hint = error.exitCode === EXIT.usage ? ` (meeting-pipeline ${command.words.join(' ')} --help)` : '';
      writeErr(`meeting-pipeline ${command.words.join(' ')}: ${error.message}${hint}\n`);
      return error.exitCode;
    }
    const refused = refusedLoopback(error);
    if (refused !== undefined) {
      writeErr(`meeting-pipeline ${command.words.join(' ')}: ${localModeDownMessage(refused)}\n`);
      return EXIT.error;
    }
    const { name, message } = error as Error;
    writeErr(`meeting-pipeline ${command.words.join(' ')}: ${name}: ${message}\n`);
    return isDeniedByAws(name) ? EXIT.denied : EXIT.error;
  }
}
