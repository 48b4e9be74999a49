import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { WIRE_DICTIONARY_D1 } from './wire-dictionary.js';

/**
 * [SYNC-24] The sync's compressed form (docs/protocol.md, "Lean sync"): a payload whose first byte is 0
 * (which no JSON text begins with) and whose second names the codec; the rest is the envelope's
 * JSON, raw deflate with the preset dictionary `WIRE_DICTIONARY_D1`. A receiver takes both
 * forms; a sender compresses only for a peer that said it takes `deflate-d1`.
 */
export const WIRE_DEFLATE = 'deflate-d1';

const MARK = 0x00;
const CODEC_D1 = 0x01;
const HEADER = Buffer.from([MARK, CODEC_D1]);
/** Below this a payload goes as it is: a few bytes are not worth a compressor's call. */
export const COMPRESS_MIN_BYTES = 64;

/** The compressed form of `json` when it is smaller, else `json` itself. */
export function compressPayload(json: Buffer): Buffer {
  if (json.length < COMPRESS_MIN_BYTES) return json;
  const deflated = deflateRawSync(json, { dictionary: WIRE_DICTIONARY_D1 });
  return deflated.length + HEADER.length < json.length ? Buffer.concat([HEADER, deflated]) : json;
}

export const isCompressed = (payload: Buffer | string): payload is Buffer => typeof payload !== 'string' && payload.length > 0 && payload[0] === MARK;

export type Inflated = { ok: true; text: string } | { ok: false; reason: string };

/**
 * The JSON text of a compressed payload, never more than `maxBytes` of it: a forged bomb
 * stops the inflater at the bound (zlib's maxOutputLength) instead of filling memory.
 */
export function inflatePayload(payload: Buffer, maxBytes: number): Inflated {
  if (payload.length < HEADER.length || payload[1] !== CODEC_D1) return { ok: false, reason: `unknown compression ${payload.length < 2 ? '(truncated)' : payload[1]}` };
  try {
    return { ok: true, text: inflateRawSync(payload.subarray(HEADER.length), { dictionary: WIRE_DICTIONARY_D1, maxOutputLength: maxBytes }).toString() };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ERR_BUFFER_TOO_LARGE' ? `compressed payload inflates beyond ${maxBytes} bytes` : `cannot inflate: ${(err as Error).message}` };
  }
}
