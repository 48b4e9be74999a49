import { KedgeError } from '../../../shared/errors.js';
import type { NodeUsage } from '../../../shared/protocol/envelope.js';
import type { KubeObject, Node, Pod } from '../../../shared/types.js';
import type { Clock } from '../../../shared/clock.js';
import type { ComputedScope } from '../../client/api-resource.js';
import type { ResourceDef } from '../kinds/registry.js';
import { notFound, type ObjectStorage } from '../rest/storage.js';
import { METRICS_GROUP, nodeMetrics, nodeMetricsPrinter, podMetrics, podMetricsPrinter } from './metrics-objects.js';

/** A connected node's newest usage report. */
export interface NodeUsageReport {
  node: string;
  usage: NodeUsage;
}

/** Where usage comes from: the hub's newest report of each connected node (offline nodes have none). */
export interface UsageSource {
  nodeUsages(): NodeUsageReport[];
}

interface MetricsDeps {
  source: UsageSource;
  storage: ObjectStorage;
  clock: Clock;
  /** The core kinds whose objects the metrics are of: their labels, and whether they exist. */
  nodes: ResourceDef;
  pods: ResourceDef;
}

const readOnly = { shortNames: [], categories: [], subresources: [], verbs: ['get', 'list'] };

/**
 * metrics.k8s.io/v1beta1, as metrics-server serves it for `kubectl top`: NodeMetrics (nodes)
 * and PodMetrics (pods), computed from the edges' usage reports, never stored. Only objects
 * that exist and belong to a connected node have metrics; each carries its object's labels.
 */
export function metricsResources(deps: MetricsDeps): ResourceDef[] {
  return [
    { group: METRICS_GROUP, version: 'v1beta1', resource: 'nodes', singular: '', kind: 'NodeMetrics', namespaced: false, ...readOnly, printer: nodeMetricsPrinter, source: (scope) => nodeMetricsOf(deps, scope) },
    { group: METRICS_GROUP, version: 'v1beta1', resource: 'pods', singular: '', kind: 'PodMetrics', namespaced: true, ...readOnly, printer: podMetricsPrinter, source: (scope) => podMetricsOf(deps, scope) },
  ];
}

async function nodeMetricsOf(deps: MetricsDeps, scope: ComputedScope): Promise<KubeObject[]> {
  const now = deps.clock.now();
  const reports = new Map(deps.source.nodeUsages().map((r) => [r.node, r.usage]));
  const nodes = scope.name === undefined ? ((await deps.storage.list(deps.nodes, undefined)).items as Node[]) : [(await deps.storage.get(deps.nodes, undefined, scope.name)) as Node];
  const out = nodes.flatMap((node) => {
    const usage = reports.get(node.metadata.name ?? '');
    return usage ? [nodeMetrics(node, usage, now)] : [];
  });
  if (scope.name !== undefined && out.length === 0) throw noMetrics('nodemetrics', scope.name);
  return out.sort(byName);
}

async function podMetricsOf(deps: MetricsDeps, scope: ComputedScope): Promise<KubeObject[]> {
  const now = deps.clock.now();
  const { namespace, name } = scope;
  const pods = name === undefined ? ((await deps.storage.list(deps.pods, namespace)).items as Pod[]) : [(await deps.storage.get(deps.pods, namespace, name)) as Pod];
  const byUid = new Map(pods.map((p) => [p.metadata.uid, p]));
  const out: KubeObject[] = [];
  for (const { node, usage } of deps.source.nodeUsages()) {
    for (const reported of usage.pods) {
      const pod = byUid.get(reported.uid);
      if (pod?.spec.nodeName === node) out.push(podMetrics(pod, reported, usage, now));
    }
  }
  if (name !== undefined && out.length === 0) throw noMetrics('podmetrics', name);
  return out.sort((a, b) => (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') || byName(a, b));
}

const byName = (a: KubeObject, b: KubeObject): number => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

/** As metrics-server words it for an object that exists but has no metrics (yet, or while its node is away). */
function noMetrics(resource: 'nodemetrics' | 'podmetrics', name: string): KedgeError {
  return notFound({ group: METRICS_GROUP, resource }, name);
}
