/**
 * The points a pod passes on its way from created to Running, in order. The cloud notes:
 * - created: the pod is in the cloud's pod informer (written, and fanned out by the watch);
 * - bound: the informer sees it with a node (the scheduler's binding, written and fanned out);
 * - sent: the hub first transmits it to its node;
 * - reported: the hub receives the node's status saying it runs;
 * - running: the informer sees it Running (the status written and fanned out).
 * Its edge notes:
 * - received: the edge applies it to its cache (edged starts it once that is persisted);
 * - statusSent: the edge publishes the status saying it runs.
 */
export const STARTUP_POINTS = ['created', 'bound', 'sent', 'received', 'statusSent', 'reported', 'running'] as const;
export type StartupPoint = (typeof STARTUP_POINTS)[number];

/** When a pod passed each point: wall-clock milliseconds (fractional). */
export type StartupMarks = Partial<Record<StartupPoint, number>>;

/** Where components note that a pod passed a point; `namespace/name` names the pod. */
export interface PodStartupTrace {
  mark(pod: string, point: StartupPoint): void;
}

/** The trace of a cloud or an edge that traces nothing (the default). */
export const untraced: PodStartupTrace = { mark: () => {} };

/** Pods the recorder keeps by default: the newest ones, so memory stays bounded however many pods come. */
export const DEFAULT_TRACED_PODS = 50_000;

/**
 * Keeps the first time each pod passed each point, for the newest `limit` pods. Times come from
 * `now`, which should be a wall clock shared with whoever compares them (a bench on this host).
 */
export class PodStartupRecorder implements PodStartupTrace {
  private readonly marks = new Map<string, StartupMarks>();

  constructor(
    private readonly now: () => number,
    private readonly limit = DEFAULT_TRACED_PODS,
  ) {}

  mark(pod: string, point: StartupPoint): void {
    let marks = this.marks.get(pod);
    if (!marks) {
      if (this.marks.size >= this.limit) this.marks.delete(this.marks.keys().next().value!);
      this.marks.set(pod, (marks = {}));
    }
    marks[point] ??= this.now();
  }

  /** Every pod's marks, by `namespace/name`. */
  snapshot(): Record<string, StartupMarks> {
    return Object.fromEntries([...this.marks].map(([pod, marks]) => [pod, { ...marks }]));
  }
}

/** Wall-clock milliseconds with the monotonic clock's resolution. */
export const preciseWallTime = (): number => performance.timeOrigin + performance.now();
