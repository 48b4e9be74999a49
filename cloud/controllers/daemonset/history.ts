import type { PodTemplateSpec } from '../../../shared/apps-types.js';
import { CONTROLLER_REVISION_HASH_LABEL, type ControllerRevision, type DaemonSet } from '../../../shared/daemonset-types.js';
import type { Pod } from '../../../shared/types.js';
import { controllerRefTo } from '../controller-ref.js';
import { podTemplateHash, sameTemplate } from '../deployment/hash.js';

/**
 * A DaemonSet's template history as ControllerRevisions (constructHistory, snapshot and
 * cleanupHistory of pkg/controller/daemon/update.go). Pure.
 */

export type HistoryAction =
  | { type: 'createRevision'; revision: ControllerRevision }
  /** The current revision renumbered to the newest (a rollback to an older template). */
  | { type: 'renumberRevision'; revision: ControllerRevision; to: number }
  | { type: 'deleteRevision'; revision: ControllerRevision };

export interface History {
  /** The current revision's hash: the pods' controller-revision-hash label. */
  hash: string;
  old: ControllerRevision[];
  actions: HistoryAction[];
}

/** getPatch: the strategic-merge patch that puts this template back (`kubectl rollout undo` sends it). */
export function revisionData(ds: DaemonSet): unknown {
  return { spec: { template: { ...structuredClone(ds.spec.template), $patch: 'replace' } } };
}

export function templateOfRevision(revision: ControllerRevision): PodTemplateSpec | undefined {
  const template = (revision.data as { spec?: { template?: PodTemplateSpec & { $patch?: string } } } | undefined)?.spec?.template;
  if (!template || typeof template !== 'object') return undefined;
  const { $patch: _directive, ...rest } = template;
  return rest;
}

const matches = (ds: DaemonSet, revision: ControllerRevision): boolean => {
  const template = templateOfRevision(revision);
  return template !== undefined && sameTemplate(template, ds.spec.template);
};

const hashOf = (revision: ControllerRevision): string => revision.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? revision.metadata.name ?? '';

/** The revision the DaemonSet's template is at: an existing one (renumbered to the newest if need be), or a new one. */
export function planHistory(ds: DaemonSet, revisions: readonly ControllerRevision[]): History {
  const current = revisions.filter((r) => matches(ds, r)).sort((a, b) => b.revision - a.revision);
  const old = revisions.filter((r) => !current.includes(r));
  const next = old.reduce((max, r) => Math.max(max, r.revision), 0) + 1;
  const cur = current[0];
  if (cur) {
    const actions: HistoryAction[] = cur.revision < next ? [{ type: 'renumberRevision', revision: cur, to: next }] : [];
    return { hash: hashOf(cur), old, actions };
  }
  const revision = newRevision(ds, next);
  return { hash: hashOf(revision), old, actions: [{ type: 'createRevision', revision }] };
}

/** ControllerRevisionName: the prefix cut to 223 characters, so that the name stays a valid subdomain. */
export function revisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/** snapshot: `<ds>-<hash>`, labelled as the template plus the hash, controlled by the DaemonSet. */
export function newRevision(ds: DaemonSet, revision: number): ControllerRevision {
  const hash = podTemplateHash(ds.spec.template, ds.status?.collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: revisionName(ds.metadata.name ?? '', hash),
      namespace: ds.metadata.namespace,
      labels: { ...ds.spec.template.metadata?.labels, [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ...(ds.metadata.annotations ? { annotations: { ...ds.metadata.annotations } } : {}),
      ownerReferences: [controllerRefTo(ds, 'apps/v1', 'DaemonSet')],
    },
    data: revisionData(ds),
    revision,
  };
}

/** cleanupHistory: beyond revisionHistoryLimit, the oldest revisions no live pod is at. */
export function staleRevisions(ds: DaemonSet, old: readonly ControllerRevision[], pods: readonly Pod[]): ControllerRevision[] {
  let excess = old.length - (ds.spec.revisionHistoryLimit ?? 10);
  if (excess <= 0) return [];
  const live = new Set(pods.map((p) => p.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL]).filter((h) => h !== undefined));
  const out: ControllerRevision[] = [];
  for (const revision of [...old].sort((a, b) => a.revision - b.revision)) {
    if (excess <= 0) break;
    if (live.has(hashOf(revision))) continue;
    out.push(revision);
    excess--;
  }
  return out;
}
