import type { Store } from '../cloud/store/store.js';
import type { Clock } from '../shared/clock.js';

/** A store under load; the durable one also counts its log appends and snapshots. */
export type LoadedStore = Store & { readonly stats?: { commits: number; snapshots: number } };

/** A pod-like object of about 1.2 KiB as JSON. */
export function benchPod(i: number, generation: number): Record<string, unknown> {
  const name = `web-${i.toString(36).padStart(6, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `3f2c${i.toString(16).padStart(8, '0')}-5e1d-4a7b-9c2e-${generation.toString(16).padStart(12, '0')}`,
      labels: { app: 'web', tier: 'frontend', 'pod-template-hash': '7d9f8c6b5' },
      annotations: { 'kedge.io/sim-start-delay': '2s', 'kedge.io/sim-crash-after': 'never' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f8c6b5', uid: '9a8b7c6d-1111-2222-3333-444455556666', controller: true }],
    },
    spec: {
      nodeName: `edge-${i % 100}`,
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27-alpine',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
          env: [{ name: 'MODE', value: 'edge' }],
        },
      ],
      tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
    status: {
      phase: 'Running',
      podIP: `10.42.${(i >> 8) & 255}.${i & 255}`,
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
      containerStatuses: [{ name: 'web', ready: true, restartCount: generation % 5, image: 'nginx:1.27-alpine', started: true }],
    },
  };
}

const podKey = (i: number): string => `/registry/pods/default/web-${i}`;

/** Creates `count` pods with `writers` concurrent writers. */
export async function prefill(store: LoadedStore, count: number, writers: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) await store.create(podKey(i), benchPod(i, 0));
  };
  await Promise.all(Array.from({ length: writers }, worker));
}

export interface RoundResult {
  writesPerSecond: number;
  /** Write latency (call to acknowledgement), ms. */
  p99LatencyMs: number;
  maxLatencyMs: number;
  writes: number;
  /** Log appends (write + fdatasync) during the round (0 where the store does not count them). */
  commits: number;
  snapshots: number;
}

/** `writers` concurrent loops, each updating a random existing pod, for `seconds`. */
export async function measureRound(store: LoadedStore, objects: number, writers: number, seconds: number, clock: Clock): Promise<RoundResult> {
  const latencies: number[] = [];
  const before = store.stats;
  const start = clock.now();
  const end = start + seconds * 1000;
  const worker = async (w: number): Promise<void> => {
    let seed = (w + 1) * 7919;
    while (clock.now() < end) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const i = seed % objects;
      const began = clock.now();
      await store.update(podKey(i), benchPod(i, latencies.length));
      latencies.push(clock.now() - began);
    }
  };
  await Promise.all(Array.from({ length: writers }, (_, w) => worker(w)));
  const elapsed = clock.now() - start;
  const after = store.stats;
  latencies.sort((a, b) => a - b);
  return {
    writesPerSecond: Math.round(latencies.length / (elapsed / 1000)),
    p99LatencyMs: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    maxLatencyMs: latencies.at(-1) ?? 0,
    writes: latencies.length,
    commits: (after?.commits ?? 0) - (before?.commits ?? 0),
    snapshots: (after?.snapshots ?? 0) - (before?.snapshots ?? 0),
  };
}
