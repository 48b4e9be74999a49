import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { LogRing } from '../shared/log-ring.js';
import type { LogLine } from './runtime/runtime.js';

/** How many of a component's latest lines are kept, and at most how many bytes (the kedge-agent runtime shows them as its container's log). */
export const COMPONENT_LOG_LINES = 500;
const COMPONENT_LOG_BYTES = 128 * 1024;

type Level = 'info' | 'warn' | 'error';

/**
 * The recent log of the edge's built-in components (kube-proxy, kedge-cni), kept in a bounded
 * ring each: what a component logs through `logger.child(<its name>)` (at any depth) goes to the
 * edge's log as before, and its info, warn and error lines are kept here too.
 */
export class ComponentLogs {
  private readonly rings = new Map<string, LogRing>();

  constructor(
    private readonly names: ReadonlySet<string>,
    private readonly clock: Clock,
    private readonly limit = COMPONENT_LOG_LINES,
  ) {}

  /** `logger`, with the lines of the named components' children kept. */
  tap(logger: Logger): Logger {
    return this.tapped(logger, undefined);
  }

  /** A component's kept lines, oldest first; undefined for a name not kept. */
  lines(component: string): LogLine[] | undefined {
    if (!this.names.has(component)) return undefined;
    return (this.rings.get(component)?.from() ?? []).map(({ time, text }) => ({ time, text }));
  }

  private tapped(inner: Logger, component: string | undefined): Logger {
    const write = (level: Level) => (msg: string, fields?: Record<string, unknown>) => {
      inner[level](msg, fields);
      if (component !== undefined) this.keep(component, level, msg, fields);
    };
    return {
      debug: (msg, fields) => inner.debug(msg, fields),
      info: write('info'),
      warn: write('warn'),
      error: write('error'),
      child: (name) => this.tapped(inner.child(name), component ?? (this.names.has(name) ? name : undefined)),
    };
  }

  private keep(component: string, level: Level, msg: string, fields: Record<string, unknown> | undefined): void {
    const ring = this.rings.get(component) ?? new LogRing(this.limit, COMPONENT_LOG_BYTES);
    this.rings.set(component, ring);
    const extra = fields && Object.keys(fields).length ? ' ' + JSON.stringify(fields) : '';
    ring.push(this.clock.now(), `${level.toUpperCase().padEnd(5)} ${msg}${extra}`);
  }
}
