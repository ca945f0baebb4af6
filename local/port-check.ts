/** Whether a TCP port on 127.0.0.1 can be bound, asked before anything is reset so a busy port changes nothing. */
import { createServer } from 'node:net';

/** Resolves undefined when `port` is free, else the error code binding it gave (EADDRINUSE, EACCES…). */
export function portProblem(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}
