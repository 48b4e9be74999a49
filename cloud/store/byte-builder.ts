/**
 * Builds bytes from strings in one reusable buffer. Encoding each small string straight into
 * the buffer is several times cheaper than concatenating them and calling Buffer.from on the
 * result. The caller must be done with `bytes` before writing more after `reset()`.
 */
export class ByteBuilder {
  private buf: Buffer;
  private used = 0;

  constructor(initialSize = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  get length(): number {
    return this.used;
  }

  /** The bytes written since the last reset (a view, not a copy). */
  get bytes(): Buffer {
    return this.buf.subarray(0, this.used);
  }

  write(text: string): void {
    const worst = text.length * 3; // UTF-8 needs at most 3 bytes per UTF-16 code unit
    if (this.used + worst > this.buf.length) this.grow(this.used + worst);
    this.used += this.buf.write(text, this.used);
  }

  writeBytes(bytes: Uint8Array): void {
    if (this.used + bytes.length > this.buf.length) this.grow(this.used + bytes.length);
    this.buf.set(bytes, this.used);
    this.used += bytes.length;
  }

  /** Overwrites already written bytes at `offset` with ASCII `text`. */
  overwrite(offset: number, text: string): void {
    this.buf.write(text, offset, 'latin1');
  }

  reset(): void {
    this.used = 0;
  }

  private grow(needed: number): void {
    const next = Buffer.allocUnsafe(Math.max(needed, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.used);
    this.buf = next;
  }
}
