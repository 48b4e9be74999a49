import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { EventCorrelator } from './correlator.js';
import type { EventOutbox } from './event-outbox.js';
import type { EventRecorder, EventType, InvolvedObject } from './event-types.js';

export interface EdgeEventRecorderDeps {
  outbox: EventOutbox;
  clock: Clock;
  logger: Logger;
  /** An event was put in the outbox: the sender may send it now. */
  onRecorded?: () => void;
  correlator?: EventCorrelator;
}

/**
 * The kubelet's recorder on the edge: each event is correlated (count, similar, spam) at the
 * edge's clock, then kept in the outbox until the cloud acks it. Recording never throws and
 * never waits, online or not.
 */
export class EdgeEventRecorder implements EventRecorder {
  private readonly correlator: EventCorrelator;

  constructor(private readonly deps: EdgeEventRecorderDeps) {
    this.correlator = deps.correlator ?? new EventCorrelator();
  }

  record(involvedObject: InvolvedObject, type: EventType, reason: string, message: string): void {
    try {
      const event = this.correlator.correlate({ involvedObject, type, reason, message }, this.deps.clock.now());
      if (!event) return;
      this.deps.outbox.put(event);
      this.deps.onRecorded?.();
    } catch (err) {
      this.deps.logger.warn('could not record an event', { reason, error: (err as Error).message });
    }
  }
}
