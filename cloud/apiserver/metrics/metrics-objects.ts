import type { NodeUsage } from '../../../shared/protocol/envelope.js';
import { parseQuantity } from '../../../shared/quantity.js';
import type { KubeObject, Node, Pod } from '../../../shared/types.js';
import { timestamp } from '../../client/object-meta.js';
import { nameColumn } from '../kinds/printers.js';
import type { Printer } from '../kinds/registry.js';
import { formatGoDuration } from '../../../shared/go-duration.js';

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
  return { kind: 'NodeMetrics', apiVersion: API_VERSION, metadata: metadataOf(node, now), timestamp: timestamp(usage.time), window: formatGoDuration(usage.windowMs), usage: usage.node };
}

export function podMetrics(pod: Pod, reported: NodeUsage['pods'][number], usage: NodeUsage, now: number): PodMetrics {
  return {
    kind: 'PodMetrics', apiVersion: API_VERSION, metadata: metadataOf(pod, now), timestamp: timestamp(usage.time), window: formatGoDuration(usage.windowMs),
    containers: reported.containers.map((c) => ({ name: c.name, usage: { cpu: c.cpu, memory: c.memory } })),
  };
}


/** Quantities summed, in nano-units (a pod's containers'); a value that does not parse counts 0. */
function nanosOf(quantities: string[]): bigint {
  return quantities.reduce((sum, text) => {
    const q = parseQuantity(text);
    return q.ok ? sum + q.nanos : sum;
  }, 0n);
}

const DECIMAL_SUFFIXES = ['n', 'u', 'm', '', 'k', 'M', 'G', 'T', 'P', 'E'];
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** A CPU amount as Quantity.String() writes it: the largest decimal suffix that keeps it whole (250000000n → 250m). */
export function cpuText(nanos: bigint): string {
  let value = nanos;
  let i = 0;
  while (value !== 0n && value % 1000n === 0n && i < DECIMAL_SUFFIXES.length - 1) [value, i] = [value / 1000n, i + 1];
  return value === 0n ? '0' : `${value}${DECIMAL_SUFFIXES[i]}`;
}

/** A memory amount as Quantity.String() writes it: the largest binary suffix that keeps it whole (65536Ki → 64Mi). */
export function memoryText(nanos: bigint): string {
  let value = nanos / 1_000_000_000n;
  let i = 0;
  while (value !== 0n && value % 1024n === 0n && i < BINARY_SUFFIXES.length - 1) [value, i] = [value / 1024n, i + 1];
  return `${value}${BINARY_SUFFIXES[i]}`;
}

/** The columns metrics-server's tables have: Name, cpu, memory, Window; amounts written as Quantity.String() does. */
function metricsPrinter(usageOf: (obj: KubeObject) => Quantities[]): Printer {
  return {
    columns: [
      nameColumn,
      { name: 'cpu', type: 'string', format: 'quantity' },
      { name: 'memory', type: 'string', format: 'quantity' },
      { name: 'Window', type: 'string', format: 'duration' },
    ],
    cells: (obj) => {
      const usages = usageOf(obj);
      const sum = (key: keyof Quantities): bigint => nanosOf(usages.map((u) => u[key]));
      return [obj.metadata.name ?? '', cpuText(sum('cpu')), memoryText(sum('memory')), (obj as NodeMetrics).window];
    },
  };
}

export const nodeMetricsPrinter = metricsPrinter((obj) => [(obj as NodeMetrics).usage]);
/** A pod's row: its containers' usage summed. */
export const podMetricsPrinter = metricsPrinter((obj) => (obj as PodMetrics).containers.map((c) => c.usage));
