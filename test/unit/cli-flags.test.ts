/** How the CLI reads a line: common flags anywhere, unknown and valueless flags as one-line usage errors, help wrapped. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../cli/exit-codes';
import { closest, parseLine, wordsWithoutCommonFlags } from '../../cli/flags';
import { wrap } from '../../cli/terminal';

describe('wordsWithoutCommonFlags', () => {
  it('takes the common flags and their values out, wherever they stand', () => {
    expect(wordsWithoutCommonFlags(['--local', 'meetings', 'list'])).toEqual(['meetings', 'list']);
    expect(wordsWithoutCommonFlags(['--endpoint', 'http://x', 'meetings', '--json', 'show', 'bot_1'])).toEqual([
      'meetings',
      'show',
      'bot_1',
    ]);
    expect(wordsWithoutCommonFlags(['--stack=Prod', '--region', 'eu-west-1', '-h', 'erase'])).toEqual(['erase']);
    expect(wordsWithoutCommonFlags(['--endpoints-file', 'f.json', 'dlq', 'list'])).toEqual(['dlq', 'list']);
    // A command's own flags stay: the command reads them.
    expect(wordsWithoutCommonFlags(['meetings', 'list', '--limit', '3'])).toEqual(['meetings', 'list', '--limit', '3']);
    expect(wordsWithoutCommonFlags(['transcript', '--', '--local'])).toEqual(['transcript']);
  });
});

describe('closest', () => {
  it('finds a near flag and nothing for a far one', () => {
    const flags = ['--endpoint', '--endpoints-file', '--json', '--local', '--limit'];
    expect(closest('--endpiont', flags)).toBe('--endpoint');
    expect(closest('--jsn', flags)).toBe('--json');
    expect(closest('--limt', flags)).toBe('--limit');
    expect(closest('--zzzzzz', flags)).toBeUndefined();
  });
});

describe('parseLine', () => {
  const options = { 'join-at': { type: 'string' }, json: { type: 'boolean' }, limit: { type: 'string' } } as const;
  const problem = (argv: string[]) => {
    try {
      parseLine(argv, options);
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      return (error as Error).message;
    }
    return undefined;
  };

  it('reads flags and positionals in any order', () => {
    expect(parseLine(['a', '--join-at', 'x', 'b', '--json'], options)).toEqual({
      values: { 'join-at': 'x', json: true },
      positionals: ['a', 'b'],
    });
    expect(parseLine(['--limit=-1'], options).values).toEqual({ limit: '-1' });
    expect(parseLine(['--limit', '-1'], options).values).toEqual({ limit: '-1' });
  });

  it('says which flag is unknown, valueless or given a value it does not take, in one line', () => {
    expect(problem(['--jion-at', 'x'])).toBe('unknown option --jion-at (did you mean --join-at?)');
    expect(problem(['--join-at'])).toBe('--join-at needs a value: --join-at VALUE (or --join-at=VALUE)');
    expect(problem(['--join-at', '--json'])).toMatch(/^--join-at needs a value/);
    expect(problem(['--json=yes'])).toBe('--json takes no value: write --json alone');
    for (const argv of [['--jion-at', 'x'], ['--join-at'], ['--json=yes']]) expect(problem(argv)).not.toContain('\n');
  });
});

describe('wrap', () => {
  it('joins and wraps a paragraph, keeps blank lines and wraps a table row under its second column', () => {
    expect(wrap('one two\nthree four five', 9)).toEqual(['one two', 'three', 'four five']);
    expect(wrap('a\n\n  name   alpha beta gamma delta epsilon zeta', 30)).toEqual([
      'a',
      '',
      '  name   alpha beta gamma',
      '         delta epsilon zeta',
    ]);
  });
});
