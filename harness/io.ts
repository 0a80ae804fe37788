/** Where a command writes. Tests pass buffers; the binary passes the process streams. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** True when stdout is a terminal, so live progress may redraw in place. */
  isTty: boolean;
}

/** Streams whose reader has gone (`harness --help | head -1`): nothing more is written to them. */
const gone = { out: false, err: false };

export const processIo: CliIo = {
  out: (text) => void (gone.out || process.stdout.write(text)),
  err: (text) => void (gone.err || process.stderr.write(text)),
  isTty: Boolean(process.stdout.isTTY),
};

/**
 * Lets a reader stop early without the harness printing an EPIPE stack trace: once a stream's
 * reader has gone, writes to it are dropped and the command ends as it would have. Nothing is
 * lost that anyone could read, and a run in progress is not killed by a closed pager. Called
 * once by the binary; tests use `bufferIo` and never touch the process streams.
 */
export function dropWritesToClosedPipes(): void {
  process.stdout.on('error', () => void (gone.out = true));
  process.stderr.on('error', () => void (gone.err = true));
}

/** Collects output in memory; what tests and snapshot checks use. */
export function bufferIo(): CliIo & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    isTty: false,
    stdout: () => out,
    stderr: () => err,
  };
}
