import type { PodTemplateSpec } from '../../../shared/apps-types.js';
import { CONTROLLER_REVISION_HASH_LABEL, type ControllerRevision } from '../../../shared/daemonset-types.js';
import type { KubeObject, Pod } from '../../../shared/types.js';
import { controllerRefTo } from '../controller-ref.js';
import { podTemplateHash, sameTemplate } from '../deployment/hash.js';

/**
 * A DaemonSet's or StatefulSet's template history as ControllerRevisions (constructHistory,
 * snapshot and cleanupHistory of pkg/controller/daemon/update.go; pkg/controller/history). Pure.
 */

/** What keeps a template history: a DaemonSet or a StatefulSet. */
export interface Revisioned extends KubeObject {
  spec: { template: PodTemplateSpec; revisionHistoryLimit?: number };
  status?: { collisionCount?: number };
}

export type HistoryAction =
  | { type: 'createRevision'; revision: ControllerRevision }
  /** The current revision renumbered to the newest (a rollback to an older template). */
  | { type: 'renumberRevision'; revision: ControllerRevision; to: number }
  | { type: 'deleteRevision'; revision: ControllerRevision };

export interface History {
  /** The current revision's hash: the pods' controller-revision-hash label. */
  hash: string;
  /** The current revision's name (StatefulSet pods carry it as their controller-revision-hash). */
  name: string;
  old: ControllerRevision[];
  actions: HistoryAction[];
}

/** getPatch: the strategic-merge patch that puts this template back (`kubectl rollout undo` sends it). */
export function revisionData(ds: Revisioned): unknown {
  return { spec: { template: { ...structuredClone(ds.spec.template), $patch: 'replace' } } };
}

export function templateOfRevision(revision: ControllerRevision): PodTemplateSpec | undefined {
  const template = (revision.data as { spec?: { template?: PodTemplateSpec & { $patch?: string } } } | undefined)?.spec?.template;
  if (!template || typeof template !== 'object') return undefined;
  const { $patch: _directive, ...rest } = template;
  return rest;
}

const matches = (ds: Revisioned, revision: ControllerRevision): boolean => {
  const template = templateOfRevision(revision);
  return template !== undefined && sameTemplate(template, ds.spec.template);
};

const hashOf = (revision: ControllerRevision): string => revision.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? revision.metadata.name ?? '';

/** The revision the owner's template is at: an existing one (renumbered to the newest if need be), or a new one. */
export function planHistory(ds: Revisioned, revisions: readonly ControllerRevision[], kind = 'DaemonSet'): History {
  const current = revisions.filter((r) => matches(ds, r)).sort((a, b) => b.revision - a.revision);
  const old = revisions.filter((r) => !current.includes(r));
  const next = old.reduce((max, r) => Math.max(max, r.revision), 0) + 1;
  const cur = current[0];
  if (cur) {
    const actions: HistoryAction[] = cur.revision < next ? [{ type: 'renumberRevision', revision: cur, to: next }] : [];
    return { hash: hashOf(cur), name: cur.metadata.name ?? '', old, actions };
  }
  const revision = newRevision(ds, next, kind);
  return { hash: hashOf(revision), name: revision.metadata.name ?? '', old, actions: [{ type: 'createRevision', revision }] };
}

/** ControllerRevisionName: the prefix cut to 223 characters, so that the name stays a valid subdomain. */
export function revisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/** snapshot: `<owner>-<hash>`, labelled as the template plus the hash, controlled by its owner. */
export function newRevision(ds: Revisioned, revision: number, kind = 'DaemonSet'): ControllerRevision {
  const hash = podTemplateHash(ds.spec.template, ds.status?.collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: revisionName(ds.metadata.name ?? '', hash),
      namespace: ds.metadata.namespace,
      labels: { ...ds.spec.template.metadata?.labels, [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ...(ds.metadata.annotations ? { annotations: { ...ds.metadata.annotations } } : {}),
      ownerReferences: [controllerRefTo(ds, 'apps/v1', kind)],
    },
    data: revisionData(ds),
    revision,
  };
}

/** cleanupHistory: beyond revisionHistoryLimit, the oldest revisions no live pod is at (a pod names its revision by hash, or by name as StatefulSet pods do). */
export function staleRevisions(ds: Revisioned, old: readonly ControllerRevision[], pods: readonly Pod[]): ControllerRevision[] {
  let excess = old.length - (ds.spec.revisionHistoryLimit ?? 10);
  if (excess <= 0) return [];
  const live = new Set(pods.map((p) => p.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL]).filter((h) => h !== undefined));
  const out: ControllerRevision[] = [];
  for (const revision of [...old].sort((a, b) => a.revision - b.revision)) {
    if (excess <= 0) break;
    if (live.has(hashOf(revision)) || live.has(revision.metadata.name ?? '')) continue;
    out.push(revision);
    excess--;
  }
  return out;
}
