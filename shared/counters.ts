/**
 * Counters of what the cloud refused or dropped (bad credentials, topics out of bounds,
 * malformed messages...), by name and labels; served at /metrics in Prometheus' text format.
 */
import { realClock, type Clock } from './clock.js';
import type { Logger } from './log.js';
import { LogSampler, unloggedFields } from './log-sampler.js';

export type Labels = Readonly<Record<string, string>>;

export class Counters {
  private readonly values = new Map<string, Map<string, number>>();
  private readonly help = new Map<string, string>();

  /** Declares a counter's help text (optional; shown in the text format). */
  describe(name: string, help: string): this {
    this.help.set(name, help);
    return this;
  }

  add(name: string, labels: Labels = {}, by = 1): void {
    const series = this.values.get(name) ?? new Map<string, number>();
    this.values.set(name, series);
    const key = labelText(labels);
    series.set(key, (series.get(key) ?? 0) + by);
  }

  get(name: string, labels: Labels = {}): number {
    return this.values.get(name)?.get(labelText(labels)) ?? 0;
  }

  /** The sum over every label set of a counter. */
  total(name: string): number {
    let sum = 0;
    for (const v of this.values.get(name)?.values() ?? []) sum += v;
    return sum;
  }

  /** Prometheus exposition format 0.0.4. */
  text(): string {
    const lines: string[] = [];
    for (const name of [...new Set([...this.help.keys(), ...this.values.keys()])].sort()) {
      const help = this.help.get(name);
      if (help) lines.push(`# HELP ${name} ${help}`);
      lines.push(`# TYPE ${name} counter`);
      for (const [labels, value] of this.values.get(name) ?? []) lines.push(`${name}${labels} ${value}`);
    }
    return lines.join('\n') + '\n';
  }
}

function labelText(labels: Labels): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${labels[k]!.replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\n')}"`);
  return pairs.length ? `{${pairs.join(',')}}` : '';
}

export interface RefusalLogOptions {
  /** Where the sampling interval is measured (default: the wall clock). */
  clock?: Clock;
  /** Default LOG_SAMPLE_INTERVAL_MS. */
  intervalMs?: number;
}

/**
 * Counts and logs one kind of refusal: `counter{reason}` goes up every time, exactly; a WARN
 * line says `what` and why for the first refusal of a reason, then for at most one per
 * interval, with how many more of that reason were refused since the previous line
 * (`moreSinceLastLine`), so a flood costs a few lines, not one per message.
 */
export function refusals(
  counters: Counters,
  counter: string,
  logger: Logger,
  what: string,
  options: RefusalLogOptions = {},
): (reason: string, message: string, details?: Record<string, unknown>) => void {
  const sampler = new LogSampler(options.clock ?? realClock, options.intervalMs);
  return (reason, message, details = {}) => {
    counters.add(counter, { reason });
    const unlogged = sampler.sample(reason);
    if (unlogged !== undefined) logger.warn(`${what}: ${message.trim()}`, { reason, ...details, ...unloggedFields(unlogged) });
  };
}
