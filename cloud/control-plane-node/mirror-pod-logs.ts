import { KedgeError } from '../../shared/errors.js';
import { MAX_LOG_BYTES } from '../../shared/protocol/codec.js';
import type { LogChunk, LogOptions } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';
import type { ComponentLogs } from './component-logs.js';
import type { RingLine } from '../../shared/log-ring.js';
import { isMirrorPodOn } from './plan.js';
import { mirrorPodName, staticPods } from './static-pods.js';

/** Where a pod's container log comes from (the apiserver's PodLogSource seam). */
export interface PodLogs {
  logs(pod: Pod, options: LogOptions): Promise<LogChunk>;
}

/** The container a log request means, or kubelet's refusal. */
function containerOf(pod: Pod, options: LogOptions): string {
  const podName = pod.metadata.name ?? '';
  const names = pod.spec.containers.map((c) => c.name);
  const name = options.container ?? (names.length === 1 ? names[0] : undefined);
  if (name === undefined) throw new KedgeError('BadRequest', `a container name must be specified for pod ${podName}, choose one of: [${names.join(' ')}]`);
  if (!names.includes(name)) throw new KedgeError('BadRequest', `container ${name} is not valid for pod ${podName}`);
  if (options.previous) throw new KedgeError('BadRequest', `previous terminated container "${name}" in pod "${podName}" not found`);
  return name;
}

/** The lines asked for: after a cursor, or since a time and the tail; as kubectl prints them, cut from the front to what one answer carries. Pure. */
export function selectLines(lines: readonly RingLine[], options: LogOptions, now: number): string {
  let chosen = lines;
  if (!options.cursor) {
    const since = options.sinceTime ?? (options.sinceSeconds === undefined ? -Infinity : now - options.sinceSeconds * 1000);
    chosen = lines.filter((l) => l.time >= since);
    if (options.tailLines !== undefined) chosen = chosen.slice(Math.max(0, chosen.length - options.tailLines));
  }
  let text = chosen.map((l) => (options.timestamps ? `${new Date(l.time).toISOString()} ${l.text}\n` : `${l.text}\n`)).join('');
  while (Buffer.byteLength(text) > MAX_LOG_BYTES) text = text.slice(text.indexOf('\n', text.length - MAX_LOG_BYTES) + 1);
  return text;
}

/**
 * The logs of the cloud's mirror pods, from the rings the cloud keeps of its own log. A cursor
 * is a ring's line number (`count`); the run never exits while the cloud runs, so a followed
 * log keeps following until the client leaves.
 */
export function mirrorPodLogs(logs: ComponentLogs, now: () => number): PodLogs {
  return {
    logs: async (pod, options) => {
      // A followed log asks again with the cursor alone, which names the container.
      const container = containerOf(pod, options.cursor ? { ...options, container: options.cursor.containerId } : options);
      const ring = logs.ring(container);
      const lines = ring.from(options.cursor?.count ?? 0);
      return { text: selectLines(lines, options, now()), cursor: { containerId: container, time: 0, count: ring.end }, exited: false };
    },
  };
}

/**
 * Whether `pod` is one of the cloud's own mirror pods on `node`: in kube-system, with the
 * mirror annotation, named after one of its manifests, and with only that manifest's containers.
 */
export function isCloudMirrorPod(pod: Pod, node: string): boolean {
  if (!isMirrorPodOn(pod, node)) return false;
  // Every container the cloud may run (the broker's too): the pod's spec says which it has.
  const manifest = staticPods(true).find((m) => mirrorPodName(m, node) === pod.metadata.name);
  const names = new Set(manifest?.containers.map((c) => c.name));
  return manifest !== undefined && pod.spec.containers.every((c) => names.has(c.name));
}

/** The cloud's own mirror pods are answered here; every other pod's log comes from its edge, through the hub. */
export function podLogsByNode(cloudNode: string, cloud: PodLogs, edges: PodLogs): PodLogs {
  return { logs: (pod, options) => (isCloudMirrorPod(pod, cloudNode) ? cloud : edges).logs(pod, options) };
}
