/** `meeting-pipeline <command>`: finds the command by its words, runs it, turns errors into exit codes. */
import { type Command, TARGET_HELP } from './command';
import { dlqList, dlqRedrive } from './commands/dlq';
import { doctor } from './commands/doctor';
import { erase } from './commands/erase';
import { events } from './commands/events';
import { meetingsList, meetingsShow } from './commands/meetings';
import { quarantineList, quarantineRedrive } from './commands/quarantine';
import { recording } from './commands/recording';
import { scheduleCancel, scheduleGet, schedulePut } from './commands/schedule';
import { transcript } from './commands/transcript';
import { CliError, EXIT, EXIT_CODES_HELP, type ExitCode, isDeniedByAws } from './exit-codes';
import { mcp } from './mcp/command';
import { writeErr, writeOut } from './terminal';

export const COMMANDS: Command[] = [
  meetingsList,
  meetingsShow,
  transcript,
  recording,
  events,
  erase,
  mcp,
  schedulePut,
  scheduleGet,
  scheduleCancel,
  dlqList,
  dlqRedrive,
  quarantineList,
  quarantineRedrive,
  doctor,
];

function overview(commands: Command[], heading: string): string {
  const width = Math.max(...commands.map((c) => c.words.join(' ').length));
  return [
    heading,
    '',
    'commands:',
    ...commands.map((c) => `  ${c.words.join(' ').padEnd(width)}  ${c.summary.split('\n')[0]}`),
    '',
    "`meeting-pipeline <command> --help` tells a command's arguments and flags; every command takes --json",
    '(the API answer as JSON on stdout, for scripts). Tables and JSON go to stdout, errors to stderr.',
    '',
    TARGET_HELP,
    '',
    EXIT_CODES_HELP,
  ].join('\n');
}

const HEADING = `usage: meeting-pipeline <command> [arguments] [flags]

Reads meetings, transcripts, recordings and delivery logs from the read API, serves them to AI
assistants over MCP, erases meetings, manages schedules, and re-drives the dead-letter queues and the quarantine, of a deployed stack or of local mode.`;

export async function main(argv: string[]): Promise<ExitCode> {
  const first = argv[0];
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    writeOut(`${overview(COMMANDS, HEADING)}\n`);
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.words.every((word, i) => argv[i] === word));
  if (command === undefined) {
    const group = COMMANDS.filter((c) => c.words[0] === first);
    if (group.length > 0) {
      const wantsHelp = argv.includes('--help') || argv.includes('-h');
      const line = wantsHelp
        ? ''
        : `meeting-pipeline ${first}: ${argv[1] === undefined ? 'which one?' : `no ${argv[1]}`}\n\n`;
      (wantsHelp ? writeOut : writeErr)(`${line}${overview(group, `usage: meeting-pipeline ${first} <command>`)}\n`);
      return wantsHelp ? EXIT.ok : EXIT.usage;
    }
    writeErr(`meeting-pipeline: no command ${JSON.stringify(first)} (meeting-pipeline --help lists them)\n`);
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
    const { name, message } = error as Error;
    writeErr(`meeting-pipeline ${command.words.join(' ')}: ${name}: ${message}\n`);
    return isDeniedByAws(name) ? EXIT.denied : EXIT.error;
  }
}
