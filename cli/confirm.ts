/** Asking a person before something that cannot be undone. */
import { createInterface } from 'node:readline';

/** Both ends are a terminal: someone is there to answer (a pipe or a script is not). */
export const onTerminal = (): boolean => process.stdin.isTTY === true && process.stdout.isTTY === true;

/**
 * Asks on the terminal (the question on stderr, so stdout stays the command's) and reads one line:
 * true only when it is `expected` exactly. Typing the name, as for deleting a repository, rather
 * than y/N: a reflexive "y" cannot erase the wrong meeting.
 */
export function confirmByTyping(question: string, expected: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  return new Promise<boolean>((resolve) => {
    // Ctrl-C or Ctrl-D before an answer: no.
    terminal.once('SIGINT', () => {
      process.stderr.write('\n');
      terminal.close();
    });
    terminal.once('close', () => resolve(false));
    terminal.question(question, (answer) => {
      resolve(answer.trim() === expected);
      terminal.close();
    });
  });
}
