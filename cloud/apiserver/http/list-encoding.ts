import type { ServerResponse } from 'node:http';

/** A list with at least this many items (a Table with as many rows) is encoded as it is sent. */
export const STREAMED_LIST_MIN_ITEMS = 256;
/** About how many bytes of items go into one write. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The array member a JSON answer is streamed by, if any: a List's `items` or a Table's `rows`,
 * when it is the last member and long. Streamed, a list of 10,000 pods never becomes one string
 * of tens of MiB in the apiserver (kube 1.33 streams list encoding for the same reason).
 */
export function streamedMember(body: unknown): 'items' | 'rows' | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const keys = Object.keys(body);
  const last = keys[keys.length - 1];
  if (last !== 'items' && last !== 'rows') return undefined;
  const array = (body as Record<string, unknown>)[last];
  return Array.isArray(array) && array.length >= STREAMED_LIST_MIN_ITEMS ? last : undefined;
}

/**
 * The JSON of `body` in pieces of about `chunkBytes`, each element of its last member `member`
 * encoded only when its piece is due; joined, exactly JSON.stringify(body). Pure.
 */
export function* listPieces(body: Record<string, unknown>, member: string, chunkBytes = CHUNK_BYTES): Generator<string> {
  const { [member]: elements, ...rest } = body;
  const head = JSON.stringify(rest);
  let piece = `${head.slice(0, -1)}${head === '{}' ? '' : ','}${JSON.stringify(member)}:[`;
  const array = elements as readonly unknown[];
  for (let i = 0; i < array.length; i++) {
    if (piece.length >= chunkBytes) {
      yield piece;
      piece = '';
    }
    // As JSON.stringify encodes an array's element that has no JSON (undefined, a function).
    piece += (i === 0 ? '' : ',') + (JSON.stringify(array[i]) ?? 'null');
  }
  yield `${piece}]}`;
}

/**
 * Writes `pieces` as the connection takes them (waiting for 'drain' when its buffer is full),
 * then ends the answer; stops if the connection closes first. A piece that cannot be encoded
 * (its headers are out) cuts the answer off, as a failure after the first byte must.
 */
export function writePieces(res: ServerResponse, pieces: Iterator<string>): void {
  let closed = false;
  const next = (): void => {
    try {
      while (!closed) {
        const { value, done } = pieces.next();
        if (done) return void res.end();
        if (!res.write(value)) return void res.once('drain', next);
      }
    } catch (err) {
      res.destroy(err as Error);
    }
  };
  res.once('close', () => {
    closed = true;
    res.off('drain', next);
  });
  next();
}
