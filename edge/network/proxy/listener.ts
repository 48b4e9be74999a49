import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Cancel, Clock } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/log.js';

export interface ListenerOptions {
  host: string;
  /** 0: the kernel picks one (a new portal). */
  port: number;
  /** What the log lines call it: `portal default/echo:http`, `nodePort 30080`. */
  what: string;
  /** Connections held at once; one more is closed at once (and counted by onDrop). */
  maxConnections: number;
  /** How long to wait before binding again a port that was taken or not available. */
  retryMs: number;
  clock: Clock;
  logger: Logger;
  onConnection: (socket: Socket) => void;
  onDrop: () => void;
  /** Called with the port once bound (again). */
  onBound?: (port: number) => void;
}

/**
 * One TCP listener of the data plane. A port it cannot bind (taken by another process, an
 * address not on this machine) is logged and tried again every `retryMs`, never fatal: the
 * other rules keep serving meanwhile.
 */
export class ServiceListener {
  private readonly server: Server;
  private bound: number | undefined;
  private retry: Cancel | undefined;
  private closed = false;
  private failing = false;

  constructor(private readonly options: ListenerOptions) {
    this.server = createServer((socket) => options.onConnection(socket));
    this.server.maxConnections = options.maxConnections;
    this.server.on('drop', () => options.onDrop());
  }

  /** Resolves after the first attempt to bind, bound or not. */
  listen(): Promise<void> {
    const { host, port, what, logger } = this.options;
    return new Promise((resolve) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        // The first failure of a streak is a WARN; the retries that follow it, debug lines.
        const log = this.failing ? logger.debug.bind(logger) : logger.warn.bind(logger);
        log(`cannot listen for ${what}; trying again`, { address: `${host}:${port}`, error: err.code ?? err.message, retryMs: this.options.retryMs });
        this.failing = true;
        this.server.removeListener('listening', onListening); // a failed bind leaves it behind otherwise
        this.scheduleRetry();
        resolve();
      };
      const onListening = (): void => {
        this.server.removeListener('error', onError);
        if (this.closed) return resolve(void this.server.close());
        this.bound = (this.server.address() as AddressInfo).port;
        if (this.failing) logger.info(`listening for ${what} at last`, { address: `${host}:${this.bound}` });
        this.failing = false;
        this.options.onBound?.(this.bound);
        resolve();
      };
      this.server.once('error', onError);
      this.server.once('listening', onListening);
      this.server.listen({ host, port });
    });
  }

  /** The port it listens on; undefined while it could not bind. */
  port(): number | undefined {
    return this.bound;
  }

  /** Stops accepting at once; connections already accepted go on (the data plane ends them when it closes). */
  close(): void {
    this.closed = true;
    this.retry?.();
    if (this.bound === undefined) return;
    this.bound = undefined;
    this.server.close();
  }

  private scheduleRetry(): void {
    if (this.closed) return;
    this.retry = this.options.clock.setTimer(this.options.retryMs, () => {
      this.retry = undefined;
      if (!this.closed) void this.listen();
    });
  }
}
