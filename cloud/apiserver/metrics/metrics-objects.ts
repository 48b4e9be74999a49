import type { NodeUsage } from '../../../shared/protocol/envelope.js';
import { parseQuantity } from '../../../shared/quantity.js';
import type { KubeObject, Node, Pod } from '../../../shared/types.js';
import { timestamp } from '../../client/object-meta.js';
import { nameColumn } from '../kinds/printers.js';
import type { Printer } from '../kinds/registry.js';

export const METRICS_GROUP = 'metrics.k8s.io';
const API_VERSION = `${METRICS_GROUP}/v1beta1`;

type Quantities = { cpu: string; memory: string };

/** k8s.io/metrics v1beta1 NodeMetrics: a node's usage over a window ending at timestamp. */
export interface NodeMetrics extends KubeObject {
  timestamp: string;
  window: string;
  usage: Quantities;
}

/** k8s.io/metrics v1beta1 PodMetrics: each container's usage. */
export interface PodMetrics extends KubeObject {
  timestamp: string;
  window: string;
  containers: { name: string; usage: Quantities }[];
}

/** Metadata as metrics-server writes it: the object's name (and namespace) and labels, created now. */
function metadataOf(object: KubeObject, now: number): KubeObject['metadata'] {
  const { name, namespace, labels } = object.metadata;
  return { name, ...(namespace !== undefined ? { namespace } : {}), ...(labels ? { labels } : {}), creationTimestamp: timestamp(now) };
}

export function nodeMetrics(node: Node, usage: NodeUsage, now: number): NodeMetrics {
  return { kind: 'NodeMetrics', apiVersion: API_VERSION, metadata: metadataOf(node, now), timestamp: timestamp(usage.time), window: goDuration(usage.windowMs), usage: usage.node };
}

export function podMetrics(pod: Pod, reported: NodeUsage['pods'][number], usage: NodeUsage, now: number): PodMetrics {
  return {
    kind: 'PodMetrics', apiVersion: API_VERSION, metadata: metadataOf(pod, now), timestamp: timestamp(usage.time), window: goDuration(usage.windowMs),
    containers: reported.containers.map((c) => ({ name: c.name, usage: { cpu: c.cpu, memory: c.memory } })),
  };
}

/** A duration as Go's time.Duration prints it ("15s", "10.5s", "1m30s", "500ms"), as metav1.Duration carries it. */
export function goDuration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1000) return whole === 0 ? '0s' : `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const seconds = `${Number(((whole % 60_000) / 1000).toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  return minutes > 0 ? `${minutes}m${seconds}` : seconds;
}

/** The sum of a pod's containers' usage: cpu in nanocores, memory in Ki. */
function podTotal(pod: PodMetrics): Quantities {
  const sum = (key: keyof Quantities): bigint => pod.containers.reduce((n, c) => {
    const q = parseQuantity(c.usage[key]);
    return q.ok ? n + q.nanos : n;
  }, 0n);
  return { cpu: `${sum('cpu')}n`, memory: `${sum('memory') / 1_000_000_000n / 1024n}Ki` };
}

/** The columns metrics-server's tables have: Name, cpu, memory, Window. */
function metricsPrinter(usageOf: (obj: KubeObject) => Quantities): Printer {
  return {
    columns: [
      nameColumn,
      { name: 'cpu', type: 'string', format: 'quantity' },
      { name: 'memory', type: 'string', format: 'quantity' },
      { name: 'Window', type: 'string', format: 'duration' },
    ],
    cells: (obj) => {
      const usage = usageOf(obj);
      return [obj.metadata.name ?? '', usage.cpu, usage.memory, (obj as NodeMetrics).window];
    },
  };
}

export const nodeMetricsPrinter = metricsPrinter((obj) => (obj as NodeMetrics).usage);
export const podMetricsPrinter = metricsPrinter((obj) => podTotal(obj as PodMetrics));
