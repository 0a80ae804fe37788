/** Where a command writes. Tests pass buffers; the binary passes the process streams. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** True when stdout is a terminal, so live progress may redraw in place. */
  isTty: boolean;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  isTty: Boolean(process.stdout.isTTY),
};

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
