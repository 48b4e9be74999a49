/**
 * SPDY/3 frames, as moby/spdystream (kubectl's port-forward) writes and reads them. A control
 * frame: 1 bit set, version 3 (15 bits), type (16), flags (8), length (24), payload. A data
 * frame: 1 bit clear, stream id (31), flags (8), length (24), data. Header blocks stay
 * compressed here (see spdy-headers.ts).
 */
export const SPDY_VERSION = 3;
export const FLAG_FIN = 0x01;

export const SYN_STREAM = 1;
export const SYN_REPLY = 2;
export const RST_STREAM = 3;
export const PING = 6;
export const GOAWAY = 7;
export const HEADERS = 8;

/** RST_STREAM status codes. */
export const RST_PROTOCOL_ERROR = 1;
export const RST_REFUSED_STREAM = 3;
export const RST_CANCEL = 5;

export type SpdyFrame =
  | { type: 'data'; streamId: number; fin: boolean; data: Buffer }
  | { type: 'syn_stream'; streamId: number; fin: boolean; headerBlock: Buffer }
  | { type: 'syn_reply' | 'headers'; streamId: number; fin: boolean; headerBlock: Buffer }
  | { type: 'rst_stream'; streamId: number; status: number }
  | { type: 'ping'; id: number }
  | { type: 'goaway'; lastGoodStreamId: number; status: number }
  /** SETTINGS, WINDOW_UPDATE and others, which spdystream ignores as well. */
  | { type: 'other'; frameType: number };

const HEADER_BYTES = 8;
const STREAM_ID_MASK = 0x7fffffff;

export function dataFrame(streamId: number, data: Buffer, fin: boolean): Buffer {
  const head = Buffer.alloc(HEADER_BYTES);
  head.writeUInt32BE(streamId & STREAM_ID_MASK, 0);
  head.writeUInt32BE(((fin ? FLAG_FIN : 0) << 24) | data.length, 4);
  return Buffer.concat([head, data]);
}

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(HEADER_BYTES);
  head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE((flags << 24) | payload.length, 4);
  return Buffer.concat([head, payload]);
}

function words(...values: number[]): Buffer {
  const out = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => out.writeUInt32BE(v >>> 0, 4 * i));
  return out;
}

/** A SYN_STREAM as a client sends it (priority 0, no associated stream). */
export function synStreamFrame(streamId: number, headerBlock: Buffer, fin: boolean): Buffer {
  return controlFrame(SYN_STREAM, fin ? FLAG_FIN : 0, Buffer.concat([words(streamId & STREAM_ID_MASK, 0), Buffer.alloc(2), headerBlock]));
}

export function synReplyFrame(streamId: number, headerBlock: Buffer, fin: boolean): Buffer {
  return controlFrame(SYN_REPLY, fin ? FLAG_FIN : 0, Buffer.concat([words(streamId & STREAM_ID_MASK), headerBlock]));
}

export function rstStreamFrame(streamId: number, status: number): Buffer {
  return controlFrame(RST_STREAM, 0, words(streamId & STREAM_ID_MASK, status));
}

export function pingFrame(id: number): Buffer {
  return controlFrame(PING, 0, words(id));
}

export function goAwayFrame(lastGoodStreamId: number, status: number): Buffer {
  return controlFrame(GOAWAY, 0, words(lastGoodStreamId & STREAM_ID_MASK, status));
}

/**
 * Cuts a byte stream into frames, keeping a partial frame for the next bytes. A frame longer
 * than `maxFrameBytes` is a protocol error (thrown), so a client cannot make it hold more.
 */
export class SpdyFrameReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly maxFrameBytes: number) {}

  push(bytes: Buffer): SpdyFrame[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, bytes]) : bytes;
    const frames: SpdyFrame[] = [];
    while (this.pending.length >= HEADER_BYTES) {
      const length = this.pending.readUInt32BE(4) & 0xffffff;
      if (length > this.maxFrameBytes) throw new Error(`SPDY frame of ${length} bytes exceeds ${this.maxFrameBytes}`);
      if (this.pending.length < HEADER_BYTES + length) break;
      frames.push(parseFrame(this.pending.subarray(0, HEADER_BYTES + length)));
      this.pending = this.pending.subarray(HEADER_BYTES + length);
    }
    return frames;
  }
}

function parseFrame(frame: Buffer): SpdyFrame {
  const flags = frame[4]!;
  const fin = (flags & FLAG_FIN) !== 0;
  const payload = frame.subarray(HEADER_BYTES);
  if ((frame[0]! & 0x80) === 0) return { type: 'data', streamId: frame.readUInt32BE(0) & STREAM_ID_MASK, fin, data: payload };
  const version = frame.readUInt16BE(0) & 0x7fff;
  if (version !== SPDY_VERSION) throw new Error(`SPDY version ${version} is not 3`);
  const type = frame.readUInt16BE(2);
  const need = (bytes: number): void => {
    if (payload.length < bytes) throw new Error(`SPDY control frame ${type} is too short`);
  };
  const streamId = (): number => payload.readUInt32BE(0) & STREAM_ID_MASK;
  switch (type) {
    case SYN_STREAM:
      need(10);
      return { type: 'syn_stream', streamId: streamId(), fin, headerBlock: payload.subarray(10) };
    case SYN_REPLY:
    case HEADERS:
      need(4);
      return { type: type === SYN_REPLY ? 'syn_reply' : 'headers', streamId: streamId(), fin, headerBlock: payload.subarray(4) };
    case RST_STREAM:
      need(8);
      return { type: 'rst_stream', streamId: streamId(), status: payload.readUInt32BE(4) };
    case PING:
      need(4);
      return { type: 'ping', id: payload.readUInt32BE(0) };
    case GOAWAY:
      need(8);
      return { type: 'goaway', lastGoodStreamId: streamId(), status: payload.readUInt32BE(4) };
    default:
      return { type: 'other', frameType: type };
  }
}
