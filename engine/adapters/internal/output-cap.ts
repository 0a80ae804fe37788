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

  /**
   * `reserveBytes` more than the cap are kept, for a trailer the writer appends after the
   * stream's own bytes ({@link takeTrailer}): the cap applies to what is left without it.
   */
  constructor(
    private readonly capBytes: number,
    private readonly reserveBytes = 0,
  ) {
    super();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    this.total += chunk.length;
    const room = this.capBytes + this.reserveBytes - this.kept;
    if (room > 0) {
      const piece = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.chunks.push(piece);
      this.kept += piece.length;
    }
    done();
  }

  get truncated(): boolean {
    return this.total > this.capBytes;
  }

  /**
   * Removes `trailer` from the end when the stream ended with exactly it and nothing was
   * dropped (a dropped tail may have held it); says whether it did.
   */
  takeTrailer(trailer: string): boolean {
    const tail = Buffer.from(trailer, 'utf8');
    if (this.total !== this.kept || this.kept < tail.length) return false;
    const body = Buffer.concat(this.chunks);
    if (!body.subarray(body.length - tail.length).equals(tail)) return false;
    this.chunks.splice(0, this.chunks.length, body.subarray(0, body.length - tail.length));
    this.kept -= tail.length;
    this.total -= tail.length;
    return true;
  }

  /** The kept text within the cap, with the truncation marker appended when bytes were dropped. */
  text(): string {
    const whole = Buffer.concat(this.chunks);
    const body = whole.subarray(0, Math.min(whole.length, this.capBytes)).toString('utf8');
    if (!this.truncated) return body;
    return `${body}${TRUNCATION_MARKER}${this.total} bytes written, first ${Math.min(this.kept, this.capBytes)} kept]`;
  }
}
