import type { Clock } from '../../shared/clock.js';
import type { Container, Pod } from '../../shared/types.js';
import { containerRef, type EventRecorder } from '../events/event-types.js';
import { messages, REASONS } from '../events/kubelet-events.js';
import { ANNOTATIONS, parseDuration } from '../runtime/sim-behaviour.js';

export type PullDecision = 'pull' | 'present' | 'never';

/** The kubelet's shouldPullImage: Never and IfNotPresent use an image on the node; anything else (Always, unset) pulls. */
export function pullDecision(policy: string | undefined, present: boolean): PullDecision {
  if (present && (policy === 'Never' || policy === 'IfNotPresent')) return 'present';
  return policy === 'Never' ? 'never' : 'pull';
}

/** A made-up but steady size for a simulated image (FNV-1a of its name): 10 to 200 MB. */
export function simulatedImageSize(image: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < image.length; i++) h = Math.imul(h ^ image.charCodeAt(i), 0x01000193) >>> 0;
  return 10_000_000 + (h % 190_000_000);
}

export interface ImagePullsDeps {
  clock: Clock;
  timeScale: number;
  recorder: EventRecorder;
}

interface Pull {
  startedAt: number;
  doneAt: number;
}

/**
 * Simulated image pulls, as the kubelet's image manager tells of them: a container's image is
 * pulled (Pulling, then Pulled after the pod's `kedge.io/image-pull-delay`, cluster time) or
 * found on the node (Pulled: already present) before the container is created. A pull under
 * way does not hold the sync up: the container waits (ContainerCreating) and edged looks again
 * when it is done. An image is on the node once pulled, or once a container of it exists.
 */
export class ImagePulls {
  private readonly present = new Set<string>();
  /** By `<pod uid>/<container>`. */
  private readonly pulls = new Map<string, Pull>();
  private readonly refused = new Set<string>();
  /** By `<pod uid>/<container>`: the attempt whose image is ensured (a start retried for another reason pulls and tells nothing again). */
  private readonly ensured = new Map<string, number>();

  constructor(private readonly deps: ImagePullsDeps) {}

  /** The images of the runtime's containers are on the node. */
  seen(images: Iterable<string>): void {
    for (const image of images) if (image) this.present.add(image);
  }

  /** Whether the image of this attempt of the container is on the node now, pulled if need be; false while it is pulled (or may not be). */
  ensure(pod: Pod, container: Container, attempt: number, init = false): boolean {
    const image = container.image ?? '';
    const key = `${pod.metadata.uid ?? ''}/${container.name}`;
    if (this.ensured.get(key) === attempt) return true;
    const about = containerRef(pod, container.name, init);
    const { recorder, clock } = this.deps;
    const decision = this.pulls.has(key) ? 'pull' : pullDecision(container.imagePullPolicy, this.present.has(image));
    if (decision === 'never') {
      if (!this.refused.has(key)) recorder.record(about, 'Warning', REASONS.neverPull, messages.neverPull(image));
      this.refused.add(key);
      return false;
    }
    this.refused.delete(key);
    if (decision === 'present') {
      recorder.record(about, 'Normal', REASONS.pulled, messages.present(image));
      this.ensured.set(key, attempt);
      return true;
    }
    let pull = this.pulls.get(key);
    if (!pull) {
      recorder.record(about, 'Normal', REASONS.pulling, messages.pulling(image));
      const now = clock.now();
      pull = { startedAt: now, doneAt: now + this.delayMs(pod) };
      this.pulls.set(key, pull);
    }
    if (clock.now() < pull.doneAt) return false;
    this.pulls.delete(key);
    this.ensured.set(key, attempt);
    this.present.add(image);
    const tookMs = (pull.doneAt - pull.startedAt) * this.deps.timeScale;
    recorder.record(about, 'Normal', REASONS.pulled, messages.pulled(image, tookMs, tookMs, simulatedImageSize(image)));
    return true;
  }

  /** When the earliest pull under way is done: edged syncs again then. */
  nextDoneAt(): number | undefined {
    const times = [...this.pulls.values()].map((p) => p.doneAt);
    return times.length > 0 ? Math.min(...times) : undefined;
  }

  /** Forgets the pulls of pods not in `held`. */
  keepOnly(held: ReadonlySet<string>): void {
    for (const key of [...this.pulls.keys(), ...this.refused, ...this.ensured.keys()]) {
      if (held.has(key.slice(0, key.indexOf('/')))) continue;
      this.pulls.delete(key);
      this.refused.delete(key);
      this.ensured.delete(key);
    }
  }

  private delayMs(pod: Pod): number {
    const ms = parseDuration(pod.metadata.annotations?.[ANNOTATIONS.imagePullDelay]);
    return ms === undefined ? 0 : Math.round(ms / this.deps.timeScale);
  }
}
