import { planDeployment, type DeploymentAction } from '../../../cloud/controllers/deployment/plan.js';
import { newReplicaSetBody } from '../../../cloud/controllers/deployment/rollout.js';
import { podTemplateHash } from '../../../cloud/controllers/deployment/hash.js';
import type { Deployment, DeploymentStatus, DeploymentStrategy, ReplicaSet } from '../../../shared/apps-types.js';
import type { Pod } from '../../../shared/types.js';

/** Objects for Deployment plan tests: times are seconds after T0. */
export const T0 = Date.UTC(2026, 0, 1);
export const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface DeploymentOptions {
  replicas?: number;
  image?: string;
  strategy?: DeploymentStrategy;
  status?: DeploymentStatus;
  generation?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
}

export function deployment(o: DeploymentOptions = {}): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', uid: 'uid-web', generation: o.generation ?? 1, resourceVersion: '20', creationTimestamp: at(0) },
    spec: {
      replicas: o.replicas ?? 3,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: o.image ?? 'hello:1' }] } },
      strategy: o.strategy ?? { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: o.revisionHistoryLimit ?? 10,
      progressDeadlineSeconds: 600,
      ...(o.paused ? { paused: true } : {}),
    },
    ...(o.status ? { status: o.status } : {}),
  };
}

export interface ReplicaSetOptions {
  image: string;
  replicas: number;
  /** status.replicas (default: replicas). */
  actual?: number;
  available?: number;
  ready?: number;
  revision: number;
  createdAt?: number;
}

/** A ReplicaSet as the controller would have made it for `d` with another image, plus a status. */
export function ownedRS(d: Deployment, o: ReplicaSetOptions): ReplicaSet {
  const template = { ...d.spec.template, spec: { containers: [{ name: 'app', image: o.image }] } };
  const body = newReplicaSetBody({ ...d, spec: { ...d.spec, template } }, podTemplateHash(template), o.replicas, o.revision);
  const actual = o.actual ?? o.replicas;
  return {
    ...body,
    metadata: { ...body.metadata, uid: `uid-${o.image}`, generation: 1, resourceVersion: '7', creationTimestamp: at(o.createdAt ?? o.revision) },
    status: { replicas: actual, readyReplicas: o.ready ?? o.available ?? actual, availableReplicas: o.available ?? actual, observedGeneration: 1 },
  };
}

/** Running a plan, and reading what it decided. */
export const NOW = T0 + 1_000_000;
export const plan = (d: Deployment, replicaSets: ReplicaSet[], pods: Pod[] = [], now = NOW, timeScale = 1): DeploymentAction[] =>
  planDeployment({ deployment: d, replicaSets, pods, now, timing: { timeScale } });

export const imageOf = (rs: ReplicaSet): string => rs.spec.template.spec.containers[0]!.image!;

/** The ReplicaSet writes of a plan, by image: "create hello:2=1", "scale hello:1 4→3", "delete hello:0". */
export function writes(actions: DeploymentAction[]): string[] {
  return actions.flatMap((a) => {
    if (a.type === 'createReplicaSet') return [`create ${imageOf(a.rs)}=${a.rs.spec.replicas}`];
    if (a.type === 'updateReplicaSet') return a.replicas === a.rs.spec.replicas ? [`annotate ${imageOf(a.rs)}`] : [`scale ${imageOf(a.rs)} ${a.rs.spec.replicas}→${a.replicas}`];
    if (a.type === 'deleteReplicaSet') return [`delete ${imageOf(a.rs)}`];
    if (a.type === 'adoptReplicaSet' || a.type === 'releaseReplicaSet') return [`${a.type} ${a.rs.metadata.name}`];
    return [];
  });
}

export const statusOf = (actions: DeploymentAction[]): DeploymentStatus | undefined => actions.find((a) => a.type === 'status')?.status;
export const condition = (s: DeploymentStatus | undefined, type: string) => s?.conditions?.find((c) => c.type === type);
export const rolling = (maxSurge: number | string, maxUnavailable: number | string) => ({ type: 'RollingUpdate' as const, rollingUpdate: { maxSurge, maxUnavailable } });
