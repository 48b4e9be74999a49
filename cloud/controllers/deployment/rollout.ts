import {
  DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, POD_TEMPLATE_HASH_LABEL, REVISION_ANNOTATION,
  type Deployment, type DeploymentCondition, type DeploymentStatus, type ReplicaSet,
} from '../../../shared/apps-types.js';
import type { Timing } from '../../../shared/timing.js';
import { controllerRefTo } from '../controller-ref.js';
import { findCondition, newCondition, Reasons, setCondition } from './conditions.js';
import { podTemplateHash, sameTemplate } from './hash.js';
import { byCreation, revisionOf, specReplicas, sumSpec } from './replica-sets.js';
import { desiredReplicas, isRollingUpdate, maxSurge } from './surge.js';

export type DeploymentAction =
  | { type: 'adoptReplicaSet'; rs: ReplicaSet }
  | { type: 'releaseReplicaSet'; rs: ReplicaSet }
  | { type: 'createReplicaSet'; rs: ReplicaSet }
  /** Sets spec.replicas and merges annotations, compare-and-set on the cached resourceVersion. */
  | { type: 'updateReplicaSet'; rs: ReplicaSet; replicas: number; annotations: Record<string, string> }
  | { type: 'deleteReplicaSet'; rs: ReplicaSet }
  | { type: 'annotateDeployment'; annotations: Record<string, string> }
  | { type: 'status'; status: DeploymentStatus }
  | { type: 'event'; eventType: 'Normal' | 'Warning'; reason: string; message: string }
  | { type: 'requeueAfter'; ms: number };

/**
 * The working state of one Deployment pass: its ReplicaSets as this pass leaves them
 * (scaling replaces them with scaled copies), the conditions so far, and the actions that
 * get there. The rollout strategies drive it; nothing here touches the API.
 */
export class Rollout {
  readonly actions: DeploymentAction[] = [];
  conditions: DeploymentCondition[];
  newRS: ReplicaSet | undefined;
  oldRSs: ReplicaSet[];
  /** The revision the Deployment should carry once this pass is applied. */
  revision: string | undefined;
  private readonly found: ReplicaSet | undefined;
  private readonly newRevision: number;
  private pendingCreate: { type: 'createReplicaSet'; rs: ReplicaSet } | undefined;

  constructor(
    readonly d: Deployment,
    replicaSets: readonly ReplicaSet[],
    readonly now: number,
    readonly timing: Pick<Timing, 'timeScale'>,
  ) {
    this.conditions = [...(d.status?.conditions ?? [])];
    const sorted = byCreation(replicaSets);
    this.found = sorted.find((rs) => sameTemplate(rs.spec.template, d.spec.template));
    this.oldRSs = sorted.filter((rs) => rs !== this.found);
    this.newRevision = Math.max(0, ...this.oldRSs.map(revisionOf)) + 1;
  }

  get all(): ReplicaSet[] {
    return this.newRS ? [...this.oldRSs, this.newRS] : [...this.oldRSs];
  }

  get hasProgressDeadline(): boolean {
    return this.d.spec.progressDeadlineSeconds !== undefined;
  }

  /** Finds the ReplicaSet of the current template and gives it the newest revision (getAllReplicaSetsAndSyncRevision). */
  syncRevision(): void {
    const rs = this.found;
    if (!rs || this.newRS) return;
    const revision = revisionOf(rs) < this.newRevision ? String(this.newRevision) : rs.metadata.annotations![REVISION_ANNOTATION]!;
    if (revisionOf(rs) < this.newRevision) this.update(rs, specReplicas(rs), { [REVISION_ANNOTATION]: revision });
    this.newRS = { ...rs, metadata: { ...rs.metadata, annotations: { ...rs.metadata.annotations, [REVISION_ANNOTATION]: revision } } };
    this.revision = revision;
    if (this.hasProgressDeadline && !findCondition(this.conditions, 'Progressing')) {
      this.setCondition(newCondition('Progressing', 'True', Reasons.foundNewRS, `Found new replica set "${rs.metadata.name}"`, this.now));
    }
  }

  /** Creates the ReplicaSet of the current template when there is none, sized as the strategy allows. */
  createNewIfMissing(): void {
    this.syncRevision();
    if (this.newRS) return;
    const d = this.d;
    const hash = podTemplateHash(d.spec.template, d.status?.collisionCount);
    const replicas = newReplicaSetReplicas(d, this.oldRSs, 0);
    const rs = newReplicaSetBody(d, hash, replicas, this.newRevision);
    this.pendingCreate = { type: 'createReplicaSet', rs };
    this.actions.push(this.pendingCreate);
    if (replicas > 0) this.event(`Scaled up replica set ${rs.metadata.name} from 0 to ${replicas}`);
    this.newRS = { ...rs, status: { replicas: 0 } };
    this.revision = String(this.newRevision);
    if (this.hasProgressDeadline) {
      this.setCondition(newCondition('Progressing', 'True', Reasons.newRSCreated, `Created new replica set "${rs.metadata.name}"`, this.now));
    }
  }

  /** scaleReplicaSetAndRecordEvent: true when the size changed. */
  scale(rs: ReplicaSet, replicas: number): boolean {
    const before = specReplicas(rs);
    if (before === replicas) return false;
    const desired = desiredReplicas(this.d);
    this.update(rs, replicas, { [DESIRED_REPLICAS_ANNOTATION]: String(desired), [MAX_REPLICAS_ANNOTATION]: String(desired + maxSurge(this.d)) });
    this.event(`Scaled ${replicas > before ? 'up' : 'down'} replica set ${rs.metadata.name} from ${before} to ${replicas}`);
    const scaled = { ...rs, spec: { ...rs.spec, replicas } };
    if (this.newRS?.metadata.name === rs.metadata.name) this.newRS = scaled;
    else this.oldRSs = this.oldRSs.map((o) => (o.metadata.name === rs.metadata.name ? scaled : o));
    return true;
  }

  setCondition(condition: DeploymentCondition): void {
    this.conditions = setCondition(this.conditions, condition);
  }

  event(message: string): void {
    this.actions.push({ type: 'event', eventType: 'Normal', reason: 'ScalingReplicaSet', message });
  }

  /** One write per ReplicaSet per pass: later changes fold into the earlier action (or the pending create). */
  private update(rs: ReplicaSet, replicas: number, annotations: Record<string, string>): void {
    const name = rs.metadata.name;
    const pending = this.pendingCreate;
    if (pending && pending.rs.metadata.name === name) {
      const body = pending.rs;
      pending.rs = { ...body, metadata: { ...body.metadata, annotations: { ...body.metadata.annotations, ...annotations } }, spec: { ...body.spec, replicas } };
      return;
    }
    const existing = this.actions.find((a): a is Extract<DeploymentAction, { type: 'updateReplicaSet' }> => a.type === 'updateReplicaSet' && a.rs.metadata.name === name);
    if (existing) {
      existing.replicas = replicas;
      existing.annotations = { ...existing.annotations, ...annotations };
    } else this.actions.push({ type: 'updateReplicaSet', rs, replicas, annotations });
  }
}

/** NewRSNewReplicas: how big the new ReplicaSet may be now, given the pods of all the others. */
export function newReplicaSetReplicas(d: Deployment, others: readonly ReplicaSet[], current: number): number {
  const desired = desiredReplicas(d);
  if (!isRollingUpdate(d)) return desired;
  const maxTotal = desired + maxSurge(d);
  const total = sumSpec(others) + current;
  if (total >= maxTotal) return current;
  return current + Math.max(0, Math.min(maxTotal - total, desired - current));
}

/** `<deployment>-<hash>`: the template plus the hash label, selected by the Deployment's selector plus the hash. */
export function newReplicaSetBody(d: Deployment, hash: string, replicas: number, revision: number): ReplicaSet {
  const template = structuredClone(d.spec.template);
  const labels = { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash };
  template.metadata = { ...template.metadata, labels };
  const desired = desiredReplicas(d);
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      namespace: d.metadata.namespace,
      labels,
      annotations: {
        [REVISION_ANNOTATION]: String(revision),
        [DESIRED_REPLICAS_ANNOTATION]: String(desired),
        [MAX_REPLICAS_ANNOTATION]: String(desired + maxSurge(d)),
      },
      ownerReferences: [controllerRefTo(d, 'apps/v1', 'Deployment')],
    },
    spec: {
      replicas,
      minReadySeconds: d.spec.minReadySeconds ?? 0,
      selector: { ...d.spec.selector, matchLabels: { ...d.spec.selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash } },
      template,
    },
  };
}
