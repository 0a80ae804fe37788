import { Writable } from 'node:stream';
import { TRUNCATION_MARKER } from '../../ports/sandbox.js';

/**
 * Collects a stream up to `capBytes` and counts (but drops) the rest. It keeps draining
 * after the cap so a chatty process never blocks on a full pipe; the exec timeout is what
 * bounds a process that never stops talking.
 */
export class CappedSink extends Writable {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private total = 0;

  constructor(private readonly capBytes: number) {
    super();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    this.total += chunk.length;
    const room = this.capBytes - this.kept;
    if (room > 0) {
      const piece = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.chunks.push(piece);
      this.kept += piece.length;
    }
    done();
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  /** The kept text, with the truncation marker appended when bytes were dropped. */
  text(): string {
    const body = Buffer.concat(this.chunks).toString('utf8');
    if (!this.truncated) return body;
    return `${body}${TRUNCATION_MARKER}${this.total} bytes written, first ${this.kept} kept]`;
  }
}
