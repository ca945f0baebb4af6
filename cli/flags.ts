/**
 * Reading the command line the forgiving way: the flags every command takes (the target,
 * --json, --help) may stand anywhere, before or after the command's words; a flag the
 * command does not know, or one left without its value, is one line saying so, with the
 * closest known flag when there is one.
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { UsageError } from './exit-codes';

/** Flags every command takes. */
export const COMMON_OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  stack: { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
  local: { type: 'boolean' },
  'endpoints-file': { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

/** The long name of `--name`, `--name=value`, `-h`; undefined for what is not a flag (`-` alone, words). */
function flagName(arg: string, options: ParseArgsOptionsConfig): string | undefined {
  if (arg.startsWith('--') && arg.length > 2) return arg.slice(2).split('=')[0];
  if (arg.startsWith('-') && arg.length === 2)
    return Object.entries(options).find(([, option]) => option.short === arg[1])?.[0] ?? arg.slice(1);
  return undefined;
}

/**
 * The words of the line once the common flags (and the values of those that take one) are
 * taken out, wherever they stand: what names the command. Stops at `--`.
 */
export function wordsWithoutCommonFlags(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') break;
    const name = flagName(arg, COMMON_OPTIONS);
    const common = name === undefined ? undefined : COMMON_OPTIONS[name as keyof typeof COMMON_OPTIONS];
    if (common === undefined) {
      words.push(arg);
      continue;
    }
    if (common.type === 'string' && !arg.includes('=')) i++;
  }
  return words;
}

/** Levenshtein distance: how many letters to add, drop or change to turn one word into the other. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The candidate nearest to a mistyped word, when it is near enough to be what was meant. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  // A third of the word, at least 2: `--endpiont` finds --endpoint, `--x` finds nothing.
  const near = Math.max(2, Math.floor(word.length / 3));
  return best !== undefined && best.distance <= near ? best.candidate : undefined;
}

export const didYouMean = (suggestion: string | undefined): string =>
  suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`;

/** The values of `options` as node:util's parseArgs types them (defaults filled in): what parseLine's values hold. */
export type FlagValues<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ options: O }>>['values'];

/**
 * The line of an `npm run <script>` tool read with parseLine: a mistake is one line on stderr naming
 * the script and its --help, and exit 2 (no stack trace).
 */
export function scriptLine<O extends ParseArgsOptionsConfig>(
  script: string,
  options: O,
): { values: FlagValues<O>; positionals: string[]; usageError(message: string): never } {
  const usageError = (message: string): never => {
    console.error(`npm run ${script}: ${message} (npm run ${script} -- --help shows the usage)`);
    process.exit(2);
  };
  try {
    return { ...parseLine(process.argv.slice(2), options), usageError };
  } catch (error) {
    return usageError((error as Error).message);
  }
}

export interface ParsedLine {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * The flags and positionals of a line, checked against the command's options: each problem is
 * a UsageError of one line. A value that is itself a known flag (`--join-at --bot-name X`) counts
 * as missing: `--flag=-1` passes a value that starts with a dash.
 */
export function parseLine<O extends ParseArgsOptionsConfig>(
  argv: string[],
  options: O,
): { values: FlagValues<O>; positionals: string[] } {
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const known = Object.keys(options).map((name) => `--${name}`);
  const isKnownFlag = (arg: string) => {
    const name = flagName(arg, options);
    return name !== undefined && name in options;
  };
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = options[token.name];
    if (option === undefined)
      throw new UsageError(`unknown option ${token.rawName}${didYouMean(closest(`--${token.name}`, known))}`);
    if (option.type === 'boolean' && token.inlineValue === true)
      throw new UsageError(`${token.rawName} takes no value: write ${token.rawName} alone`);
    if (option.type === 'string' && (token.value === undefined || (!token.inlineValue && isKnownFlag(token.value))))
      throw new UsageError(`${token.rawName} needs a value: ${token.rawName} VALUE (or ${token.rawName}=VALUE)`);
  }
  return { values: values as FlagValues<O>, positionals };
}
