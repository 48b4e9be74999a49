import type { Cancel, Clock } from '../../../shared/clock.js';
import type { NodeProbe } from './heartbeat.js';
import { recounted } from './sight.js';
import type { TaintManagerMemory } from './taint-manager.js';

/** What the controller remembers per node between passes. */
export interface NodeMemory extends TaintManagerMemory {
  probe?: NodeProbe;
}

/** The controller's memory of every node, and the timer that wakes each at its next eviction deadline. */
export class NodeMemories {
  private readonly memory = new Map<string, NodeMemory>();
  private readonly wakes = new Map<string, Cancel>();
  private closing = false;

  constructor(private readonly clock: Clock) {}

  of(name: string): NodeMemory {
    let m = this.memory.get(name);
    if (!m) this.memory.set(name, (m = { scheduled: new Map(), taintSeen: new Map() }));
    return m;
  }

  forget(name: string): void {
    this.wakes.get(name)?.();
    this.wakes.delete(name);
    this.memory.delete(name);
  }

  /** Calls `wake` at `at`, measured from the clock's now (the writes since the pass began took time); undefined: never. */
  wakeAt(name: string, at: number | undefined, wake: () => void): void {
    this.wakes.get(name)?.();
    this.wakes.delete(name);
    if (at === undefined || this.closing) return;
    this.wakes.set(name, this.clock.setTimer(Math.max(0, at - this.clock.now()), wake));
  }

  /** Every node's silence counts from `now`. */
  recountSilence(now: number): void {
    for (const m of this.memory.values()) if (m.probe) m.probe = recounted(m.probe, now);
  }

  /** No more wake-ups from now on; `forgetAll` once the passes in flight are done. */
  close(): void {
    this.closing = true;
  }

  forgetAll(): void {
    for (const cancel of this.wakes.values()) cancel();
    this.wakes.clear();
    this.memory.clear();
  }
}
