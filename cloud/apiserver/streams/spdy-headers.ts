import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { SPDY3_DICTIONARY } from './spdy-dictionary.js';

/** The most a header block may inflate to: port-forward's headers are a few dozen bytes. */
const MAX_HEADER_BLOCK_BYTES = 64 * 1024;

/** Header names (lower case) and values (several joined by NUL, as SPDY/3 does). */
export type SpdyHeaders = Record<string, string>;

/** A name/value block as SPDY/3 lays it out: a count, then each name and value after its 4-byte length. */
export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [u32(Object.keys(headers).length)];
  for (const [name, value] of Object.entries(headers)) parts.push(u32(Buffer.byteLength(name)), Buffer.from(name), u32(Buffer.byteLength(value)), Buffer.from(value));
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  const headers: SpdyHeaders = {};
  let at = 0;
  const take = (): string => {
    if (at + 4 > block.length) throw new Error('truncated SPDY header block');
    const length = block.readUInt32BE(at);
    if (at + 4 + length > block.length) throw new Error('truncated SPDY header block');
    const text = block.toString('utf8', at + 4, at + 4 + length);
    at += 4 + length;
    return text;
  };
  const count = block.length >= 4 ? block.readUInt32BE(0) : 0;
  at = 4;
  for (let i = 0; i < count; i++) {
    const name = take();
    headers[name.toLowerCase()] = take();
  }
  return headers;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
}

/**
 * A session's header compression: every header block of one direction goes through one zlib
 * stream primed with the SPDY/3 dictionary, each block ending at a sync flush, so both ends
 * must see every block, in order: each direction runs its blocks one after another.
 */
export class HeaderZlib {
  private readonly deflate = new ZlibDirection(createDeflate({ dictionary: SPDY3_DICTIONARY }));
  private readonly inflate = new ZlibDirection(createInflate({ dictionary: SPDY3_DICTIONARY }));

  compress(headers: SpdyHeaders): Promise<Buffer> {
    return this.deflate.flushed(encodeHeaderBlock(headers));
  }

  async decompress(block: Buffer): Promise<SpdyHeaders> {
    return decodeHeaderBlock(await this.inflate.flushed(block));
  }

  close(): void {
    this.deflate.close();
    this.inflate.close();
  }
}

class ZlibDirection {
  private queue: Promise<unknown> = Promise.resolve();
  private output: Buffer[] = [];
  private size = 0;
  private failure: Error | undefined;

  constructor(private readonly stream: Deflate | Inflate) {
    stream.on('data', (chunk: Buffer) => {
      this.size += chunk.length;
      if (this.size <= MAX_HEADER_BLOCK_BYTES) this.output.push(chunk); // past it, dropped as it comes: a small block cannot make it hold more
    });
    stream.on('error', (err) => (this.failure = err));
  }

  /** What `input` turns into, up to a sync flush; a block over MAX_HEADER_BLOCK_BYTES is refused. */
  flushed(input: Buffer): Promise<Buffer> {
    const next = this.queue.then(() => this.run(input));
    this.queue = next.catch(() => {});
    return next;
  }

  close(): void {
    this.stream.close();
  }

  private async run(input: Buffer): Promise<Buffer> {
    if (this.failure) throw this.failure;
    await new Promise<void>((resolve, reject) => {
      this.stream.once('error', reject); // a corrupt block: no flush will follow
      this.stream.write(input);
      this.stream.flush(constants.Z_SYNC_FLUSH, () => {
        this.stream.off('error', reject);
        resolve();
      });
    });
    await new Promise((resolve) => setImmediate(resolve)); // output pushed during the flush may be emitted on the next tick
    if (this.failure) throw this.failure;
    const out = Buffer.concat(this.output);
    const size = this.size;
    this.output = [];
    this.size = 0;
    if (size > MAX_HEADER_BLOCK_BYTES) throw new Error(`SPDY header block inflates past ${MAX_HEADER_BLOCK_BYTES} bytes`);
    return out;
  }
}
