import type { EventRecorder, EventType, InvolvedObject } from './event-types.js';

/**
 * The recorder as edged uses it: plain events pass through; a state a sync finds again and
 * again (a failure it retries, a back-off it waits out) is told once per transition, until it
 * clears or changes. Keys start with the pod's uid, so a pod's states go with the pod.
 */
export class KubeletEventLog implements EventRecorder {
  private readonly told = new Map<string, string>();

  constructor(private readonly recorder: EventRecorder) {}

  record(about: InvolvedObject, type: EventType, reason: string, message: string): void {
    this.recorder.record(about, type, reason, message);
  }

  /** Records unless `state` is what was last told under `key`. */
  recordOnce(key: string, state: string, about: InvolvedObject, type: EventType, reason: string, message: string): void {
    if (this.told.get(key) === state) return;
    this.told.set(key, state);
    this.record(about, type, reason, message);
  }

  /** The state under `key` is over: the next one is told again. */
  clear(key: string): void {
    this.told.delete(key);
  }

  /** Forgets the states of pods not in `held`. */
  keepOnly(held: ReadonlySet<string>): void {
    for (const key of this.told.keys()) if (!held.has(key.slice(0, key.indexOf('/')))) this.told.delete(key);
  }
}
