import type { Decoded } from './codec.js';
import { streamEndProblem, streamRequestProblem } from './stream-frame-checks.js';
import type { StreamEnd, StreamRequest } from './streams.js';

/**
 * [SYNC-20] The frames of a stream, on the node's `stream-down` (cloud → edge) and `stream-up`
 * (edge → cloud) topics. Binary: a big-endian u16 header length, the header as JSON, then the
 * raw bytes of a `data` frame (no other frame has any). Every frame names its stream and
 * carries `seq`, counting the frames of that stream in its direction from 0 (open, or the
 * edge's first answer): a gap means a lost frame, and the stream ends with an error.
 */
export interface PodRef {
  namespace: string;
  name: string;
  uid: string;
}

/** Bytes a `data` frame carries at most. */
export const MAX_STREAM_DATA_BYTES = 32 * 1024;
/** Each direction of a stream: the bytes a sender may have sent beyond what the receiver granted. */
export const STREAM_WINDOW_BYTES = 256 * 1024;
/** The JSON header's largest size (an open's command line is the longest). */
export const MAX_STREAM_HEADER_BYTES = 16 * 1024;

type Framed<T> = T & { stream: string; seq: number };

export type StreamFrame = Framed<
  /** cloud → edge: start `request` on the pod; the edge may send `window` bytes of output before any credit. */
  | { type: 'open'; pod: PodRef; request: StreamRequest; window: number }
  /** edge → cloud: started; the cloud may send `window` bytes of input before any credit. */
  | { type: 'opened'; window: number }
  | { type: 'data'; channel: number; data: Buffer }
  /** The receiver took `bytes` more: the sender may send that much more. */
  | { type: 'credit'; bytes: number }
  | { type: 'resize'; width: number; height: number }
  /** A channel's input ended (stdin's end of file; port-forward: the client closed its side). */
  | { type: 'eof'; channel: number }
  /** Terminal, from either side: the cloud's means "stop" (its content is then only a reason). */
  | { type: 'end'; end: StreamEnd }
>;

export type StreamFrameType = StreamFrame['type'];

/** A frame as a stream's end makes it, before FrameOrder stamps its id and sequence number. */
export type FrameDraft = StreamFrame extends infer F ? (F extends StreamFrame ? Omit<F, 'stream' | 'seq'> : never) : never;

export function encodeStreamFrame(frame: StreamFrame): Buffer {
  const { data, ...header } = frame as StreamFrame & { data?: Buffer };
  const json = Buffer.from(JSON.stringify(header));
  if (json.length > MAX_STREAM_HEADER_BYTES) throw new RangeError(`a ${frame.type} frame's header is ${json.length} bytes, over ${MAX_STREAM_HEADER_BYTES}`);
  if (data && data.length > MAX_STREAM_DATA_BYTES) throw new RangeError(`a data frame carries at most ${MAX_STREAM_DATA_BYTES} bytes, not ${data.length}`);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(json.length);
  return Buffer.concat(data ? [length, json, data] : [length, json]);
}

const STREAM_ID = /^[A-Za-z0-9._-]{1,64}$/;
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isInt = (x: unknown, min: number, max: number): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= min && x <= max;
const isText = (x: unknown, max: number): x is string => typeof x === 'string' && x.length > 0 && x.length <= max;

function podRefProblem(x: unknown): string | undefined {
  if (!isObject(x)) return 'pod must be an object';
  if (!isText(x.namespace, 63) || !isText(x.name, 253) || !isText(x.uid, 128)) return 'pod must have a namespace, a name and a uid';
  return undefined;
}

const window = (h: Record<string, unknown>): string | undefined => (isInt(h.window, 1, 64 * STREAM_WINDOW_BYTES) ? undefined : 'window must be a positive integer');
const channel = (h: Record<string, unknown>): string | undefined => (isInt(h.channel, 0, 255) ? undefined : 'channel must be from 0 to 255');

const headerChecks: Record<StreamFrameType, (h: Record<string, unknown>) => string | undefined> = {
  open: (h) => podRefProblem(h.pod) ?? streamRequestProblem(h.request) ?? window(h),
  opened: window,
  data: channel,
  credit: (h) => (isInt(h.bytes, 1, 64 * STREAM_WINDOW_BYTES) ? undefined : 'bytes must be a positive integer'),
  resize: (h) => (isInt(h.width, 0, 65535) && isInt(h.height, 0, 65535) ? undefined : 'width and height must be from 0 to 65535'),
  eof: channel,
  end: (h) => streamEndProblem(h.end),
};

/** Validates one frame; anything unexpected is a reason to drop it. Pure. */
export function decodeStreamFrame(payload: Buffer): Decoded<StreamFrame> {
  if (payload.length < 2) return { ok: false, reason: 'shorter than its header length' };
  const headerBytes = payload.readUInt16BE(0);
  if (headerBytes > MAX_STREAM_HEADER_BYTES) return { ok: false, reason: `a header of ${headerBytes} bytes, over ${MAX_STREAM_HEADER_BYTES}` };
  if (payload.length < 2 + headerBytes) return { ok: false, reason: 'shorter than its header' };
  let header: unknown;
  try {
    header = JSON.parse(payload.subarray(2, 2 + headerBytes).toString('utf8'));
  } catch {
    return { ok: false, reason: 'the header is not JSON' };
  }
  if (!isObject(header)) return { ok: false, reason: 'the header is not an object' };
  const check = typeof header.type === 'string' && Object.hasOwn(headerChecks, header.type) ? headerChecks[header.type as StreamFrameType] : undefined;
  if (!check) return { ok: false, reason: `unknown frame type ${String(header.type)}` };
  if (!isText(header.stream, 64) || !STREAM_ID.test(header.stream)) return { ok: false, reason: 'stream must be an id of letters, digits, ".", "_" and "-"' };
  if (!isInt(header.seq, 0, Number.MAX_SAFE_INTEGER)) return { ok: false, reason: 'seq must be a count' };
  const problem = check(header);
  if (problem) return { ok: false, reason: `${header.type}: ${problem}` };
  const data = payload.subarray(2 + headerBytes);
  if (header.type !== 'data') return data.length === 0 ? { ok: true, message: header as StreamFrame } : { ok: false, reason: `a ${header.type} frame carries no bytes` };
  if (data.length > MAX_STREAM_DATA_BYTES) return { ok: false, reason: `a data frame of ${data.length} bytes, over ${MAX_STREAM_DATA_BYTES}` };
  if (data.length === 0) return { ok: false, reason: 'an empty data frame' };
  return { ok: true, message: { ...(header as Extract<StreamFrame, { type: 'data' }>), data: Buffer.from(data) } };
}
