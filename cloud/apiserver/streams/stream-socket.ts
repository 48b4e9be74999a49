/**
 * The little of a WebSocket that a stream session uses (ws's WebSocket, through an adapter in
 * http/upgrade-server.ts): binary messages in and out, how much is still unsent, a ping answered,
 * a normal close.
 */
export interface StreamSocket {
  /** Queues one binary message; resolves once it has been written to the connection. */
  send(data: Buffer): Promise<void>;
  /** Bytes queued but not yet written to the connection. */
  bufferedAmount(): number;
  /**
   * Pings the client and resolves on its next pong, or once the connection has closed. A pong
   * says the client has read past the handshake and its reader runs.
   */
  roundTrip(): Promise<void>;
  /** Closes with `code` (1000: normal) after what is queued. */
  close(code: number, reason?: string): void;
  /** Stops (and restarts) reading messages from the client: input waits for the pod. */
  pause(): void;
  resume(): void;
  onMessage(listener: (data: Buffer) => void): void;
  /** Called once, when the connection has closed (either side). */
  onClose(listener: () => void): void;
}

/** Sends `data`, waiting first while more than `limit` bytes are queued (a slow client slows the producer). */
export async function sendBounded(socket: StreamSocket, data: Buffer, limit: number): Promise<void> {
  const sent = socket.send(data);
  if (socket.bufferedAmount() > limit) await sent;
}

/** Steps run one after another (serialQueue). */
export type Later = (step: () => Promise<void> | void) => void;

/**
 * Input that waits for the pod, counted across a session from its arrival: while more than
 * `limit` bytes wait, the socket is not read, so a client sending faster than the pod takes is
 * held back. Each write runs on the queue `later` of its stream.
 */
export function inputGate(socket: StreamSocket, limit: number): (later: Later, bytes: number, write: () => Promise<void>) => void {
  let waiting = 0;
  return (later, bytes, write) => {
    waiting += bytes;
    if (waiting > limit) socket.pause();
    later(async () => {
      try {
        await write();
      } finally {
        waiting -= bytes;
        if (waiting <= limit) socket.resume();
      }
    });
  };
}

/** Runs steps one after another; a step that fails (a write after the stream's end) does not stop the next. */
export function serialQueue(first: Promise<unknown> = Promise.resolve()): Later {
  let queue = first.then(() => {}, () => {});
  return (step) => {
    queue = queue.then(step).catch(() => {});
  };
}
