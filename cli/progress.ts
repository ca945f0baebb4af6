/** A download progress bar on stderr: redrawn in place on a terminal, one summary line otherwise. */

export interface Progress {
  advance(bytes: number): void;
  done(): void;
}

const MiB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

export function progressBar(
  total: number | undefined,
  stream: NodeJS.WriteStream = process.stderr,
  now: () => number = Date.now,
): Progress {
  const started = now();
  let received = 0;
  let drawnAt = 0;
  const line = () => {
    const seconds = Math.max((now() - started) / 1000, 0.001);
    const speed = `${mib(received / seconds)}/s`;
    if (total === undefined || total === 0) return `${mib(received)}  ${speed}`;
    const share = Math.min(received / total, 1);
    const width = 30;
    const filled = Math.round(share * width);
    return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}%  ${mib(received)} of ${mib(total)}  ${speed}`;
  };
  return {
    advance(bytes) {
      received += bytes;
      // Redrawing on every chunk would cost more than the download on a fast link.
      if (stream.isTTY && now() - drawnAt >= 100) {
        drawnAt = now();
        stream.write(`\r${line()}`);
      }
    },
    done() {
      stream.write(stream.isTTY ? `\r${line()}\n` : `downloaded ${line()}\n`);
    },
  };
}
