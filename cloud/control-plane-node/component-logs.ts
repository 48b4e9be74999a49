import { textLine, type Fields, type Logger, type LogLevel } from '../../shared/log.js';
import { LogRing } from '../../shared/log-ring.js';

/** How much of each component's log the cloud keeps for `kubectl logs`. */
export const RING_LINES = 2000;
export const RING_BYTES = 512 * 1024;

/** Which static container a logger's line belongs to: from the logger's path below the cloud's, and its fields. */
export type LogRouter = (path: readonly string[], fields: Fields) => string;

/** The cloud's log, kept per static container (kube-scheduler, kube-controller-manager, …) in bounded rings. */
export class ComponentLogs {
  private readonly rings = new Map<string, LogRing>();

  constructor(
    private readonly route: LogRouter,
    private readonly now: () => number,
    private readonly limits = { lines: RING_LINES, bytes: RING_BYTES },
  ) {}

  /** The container's ring (an empty one for a container that logged nothing yet). */
  ring(container: string): LogRing {
    let ring = this.rings.get(container);
    if (!ring) this.rings.set(container, (ring = new LogRing(this.limits.lines, this.limits.bytes)));
    return ring;
  }

  /** A logger that writes to `inner` as before and keeps each line of info and above in its container's ring. */
  tee(inner: Logger, path: readonly string[] = []): Logger {
    const at = (level: LogLevel, write: Logger['info']): Logger['info'] => (msg, fields) => {
      write(msg, fields);
      if (level === 'debug') return;
      const time = this.now();
      this.ring(this.route(path, fields)).push(time, textLine(new Date(time).toISOString(), level, path.join('/') || 'cloud', msg, fields));
    };
    return {
      debug: (msg, fields) => inner.debug(msg, fields),
      info: at('info', (msg, fields) => inner.info(msg, fields)),
      warn: at('warn', (msg, fields) => inner.warn(msg, fields)),
      error: at('error', (msg, fields) => inner.error(msg, fields)),
      child: (name) => this.tee(inner.child(name), [...path, name]),
    };
  }
}
