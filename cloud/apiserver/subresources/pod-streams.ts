import type { StreamEnd, StreamRequest } from '../../../shared/protocol/streams.js';
import type { Pod } from '../../../shared/types.js';

/** A piece of a stream's output: which channel (STDOUT, STDERR) and its bytes. */
export interface StreamChunk {
  channel: number;
  data: Buffer;
}

/**
 * One open stream to a pod on its edge. Output is pulled: the edge may send only as much as
 * the reader has taken plus a bounded window, so a slow client slows the producer instead of
 * filling memory. Input waits for the edge's window in the same way.
 */
export interface PodStream {
  /** The next piece of output, in order; undefined once the stream has ended (then `ended` has settled). */
  read(): Promise<StreamChunk | undefined>;
  /** Sends bytes on an input channel (STDIN); resolves once the edge's window has room for more. Rejects once the stream has ended. */
  write(channel: number, data: Buffer): Promise<void>;
  /** No more input on `channel` (stdin's end of file; port-forward: the client closed its side). */
  closeInput(channel: number): void;
  /** The client's terminal size changed (exec and attach with a tty). */
  resize(width: number, height: number): void;
  /** How the stream ended; settles after the last output has been read or the stream was cancelled. */
  readonly ended: Promise<StreamEnd>;
  /** The client went away: the edge ends its side (kills an exec'd process, closes a port-forward's socket). Idempotent. */
  cancel(reason: string): void;
}

/**
 * Where pods' streams are opened: the cloud hub, over the node's sync link. `open` rejects
 * with a KedgeError when the stream cannot start: the node is away (Unavailable, naming the
 * node and since when, as for logs), the edge refused it (NotFound for a gone container,
 * BadRequest), too many streams (TooManyRequests), or no answer in time (Timeout).
 */
export interface PodStreams {
  open(pod: Pod, request: StreamRequest): Promise<PodStream>;
}
