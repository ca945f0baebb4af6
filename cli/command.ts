/** One CLI command: its words, flags, help and what it does. Flags are parsed with node:util parseArgs. */
import type { ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { EXIT_CODES_HELP, type ExitCode, UsageError } from './exit-codes';
import { COMMON_OPTIONS, parseLine } from './flags';
import { resolveTarget, type Target } from './target';
import { terminalJson, writeOut } from './terminal';

type CommonOptions = typeof COMMON_OPTIONS;
interface CommonValues {
  json?: boolean;
  help?: boolean;
  stack?: string;
  region?: string;
  endpoint?: string;
  local?: boolean;
  'endpoints-file'?: string;
}

export const TARGET_HELP = `target (one of):
  --stack NAME            a deployed stack, by its CloudFormation outputs (default MeetingPipeline);
                          requests signed with SigV4 using the default AWS credentials
  --region REGION         its region (default: AWS_REGION or the profile's)
  --endpoint URL          the HTTP API's base URL, e.g. local mode's http://127.0.0.1:PORT
                          (no auth on loopback)
  --local                 local mode: the endpoints \`npm run dev\` wrote to .local/endpoints.json
  --endpoints-file FILE   local mode with another endpoints file`;

type Parsed<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O & CommonOptions; strict: true; allowPositionals: true }>
>;

export interface CommandInput<O extends ParseArgsOptionsConfig> {
  values: Parsed<O>['values'];
  /** Positional arguments after the command's words. */
  args: string[];
  /** Resolved on first use: commands that fail on their flags never call AWS. */
  target(): Promise<Target>;
}

export interface Command {
  words: readonly string[];
  summary: string;
  help(): string;
  run(argv: string[]): Promise<ExitCode | undefined>;
}

export interface CommandSpec<O extends ParseArgsOptionsConfig> {
  words: readonly string[];
  /** `<bot>`-style arguments after the words, as the usage line shows them. */
  args?: readonly string[];
  summary: string;
  /** Flags after the arguments in the usage line, e.g. `[--format json|text]`. */
  usage?: string;
  /** One line a flag, aligned: the command's own flags. */
  flags?: string;
  options: O;
  run(input: CommandInput<O>): Promise<ExitCode | undefined>;
}

export function defineCommand<O extends ParseArgsOptionsConfig>(spec: CommandSpec<O>): Command {
  const argNames = spec.args ?? [];
  const help = () =>
    [
      `usage: meeting-pipeline ${[...spec.words, ...argNames, spec.usage ?? ''].join(' ').trim()} [--json] [target]`,
      '',
      spec.summary,
      ...(spec.flags === undefined ? [] : ['', 'flags:', spec.flags]),
      '  --json                  the API answer as JSON (for scripts); errors still go to stderr',
      '',
      TARGET_HELP,
      '',
      EXIT_CODES_HELP,
    ].join('\n');
  return {
    words: spec.words,
    summary: spec.summary,
    help,
    async run(argv) {
      const parsed = parseLine(argv, { ...COMMON_OPTIONS, ...spec.options }) as Pick<
        Parsed<O>,
        'values' | 'positionals'
      >;
      // The common flags' types do not depend on the command's own.
      const common = parsed.values as unknown as CommonValues;
      if (common.help === true) {
        print(help());
        return undefined;
      }
      const args = parsed.positionals.slice(spec.words.length);
      // `[name]` is optional, `<name>` required.
      const required = argNames.filter((name) => !name.startsWith('[')).length;
      if (args.length < required)
        throw new UsageError(`${spec.words.join(' ')} needs ${argNames.slice(args.length, required).join(' ')}`);
      if (args.length > argNames.length)
        throw new UsageError(`${spec.words.join(' ')}: unexpected ${args.slice(argNames.length).join(' ')}`);
      let target: Promise<Target> | undefined;
      return spec.run({
        values: parsed.values,
        args,
        target: () => {
          target ??= resolveTarget({
            ...(common.stack !== undefined && { stack: common.stack }),
            ...(common.region !== undefined && { region: common.region }),
            ...(common.endpoint !== undefined && { endpoint: common.endpoint }),
            ...(common.local !== undefined && { local: common.local }),
            ...(common['endpoints-file'] !== undefined && { endpointsFile: common['endpoints-file'] }),
          });
          return target;
        },
      });
    },
  };
}

/** A whole number within bounds, or a usage error naming the flag. */
export function wholeNumber(flag: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new UsageError(`--${flag} takes a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return value;
}

/** Writes a line to stdout, without control characters (terminal.ts). */
export const print = (text: string) => writeOut(`${text}\n`);
/** `--json` output: the API's JSON, indented. */
export const printJson = (value: unknown) => writeOut(`${terminalJson(value)}\n`);
