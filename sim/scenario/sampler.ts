import type { Clock } from '../../shared/clock.js';
import type { ScenarioCluster } from './cluster.js';
import { cloudView, glimpse, type CloudView } from './observe.js';
import type { RunRecorder } from './recorder.js';
import { summarize, type EdgeDown } from './timeline.js';

export const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/** Real milliseconds between periodic timeline samples: 5 s of cluster time, at most 1 s and at least 0.2 s real. */
export const sampleIntervalMs = (scale: number): number => clamp(5_000 / scale, 200, 1_000);

/**
 * A sample waits this long (real time) for the cloud's view, else shows it as no answer: a
 * cloud whose store has no quorum answers only when etcd gives up (about 10 s).
 */
export const CLOUD_LOOK_TIMEOUT_MS = 3_000;

export interface SamplerDeps {
  cluster: ScenarioCluster;
  clock: Clock;
  timeScale: number;
}

/**
 * Takes the timeline's samples: on a period in the background, and whenever the runner asks
 * (at each step and each look at an expectation), so that nothing a step does falls between two.
 */
export class Sampler {
  private readonly down = new Map<string, EdgeDown>();
  private readonly stopped = new AbortController();
  private loop: Promise<void> | undefined;
  /** The cloud look under way: a slow cloud is asked once at a time, not once per sample. */
  private cloudLook: Promise<CloudView> | undefined;

  constructor(
    private readonly d: SamplerDeps,
    private readonly rec: RunRecorder,
  ) {}

  /** Starts the periodic samples (the first one at once). */
  start(): void {
    this.loop ??= (async () => {
      while (!this.stopped.signal.aborted) {
        await this.take();
        await this.d.clock.sleep(sampleIntervalMs(this.d.timeScale), this.stopped.signal).catch(() => undefined);
      }
    })();
  }

  /** One sample now; the edges down are those at the moment the look begins. */
  async take(): Promise<void> {
    const at = this.rec.at();
    const down = new Map(this.down);
    const seen = await glimpse(this.d.cluster, new Set(down.keys()), () => this.lookAtCloud());
    this.rec.sample(summarize(this.d.cluster.nodes, seen, down), at);
  }

  private async lookAtCloud(): Promise<CloudView> {
    const look = (this.cloudLook ??= cloudView(this.d.cluster).finally(() => (this.cloudLook = undefined)));
    let cancel = (): void => {};
    const late = new Promise<undefined>((resolve) => (cancel = this.d.clock.setTimer(CLOUD_LOOK_TIMEOUT_MS, () => resolve(undefined))));
    try {
      return await Promise.race([look, late]);
    } finally {
      cancel();
    }
  }

  /**
   * Runs a step that takes these edges down, sampling as it begins (with them down) and as it
   * ends (with them back): a reboot shows as its pods gone, however short it is.
   */
  async whileDown<T>(nodes: readonly string[], how: EdgeDown, step: () => Promise<T>): Promise<T> {
    for (const n of nodes) this.down.set(n, how);
    try {
      await this.take();
      return await step();
    } finally {
      for (const n of nodes) this.down.delete(n);
    }
  }

  /** Stops the periodic samples and takes one last sample. */
  async stop(): Promise<void> {
    this.stopped.abort();
    await this.loop;
    await this.take();
  }
}
