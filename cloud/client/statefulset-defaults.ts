import type { StatefulSet } from '../../shared/statefulset-types.js';
import { defaultPodTemplate } from './apps-defaults.js';

/**
 * SetDefaults_StatefulSet: OrderedReady, RollingUpdate with partition 0, claims retained,
 * one replica, a history of 10 revisions, the pod template's defaults and volumeMode
 * Filesystem in each claim template. maxUnavailable sits behind the alpha gate
 * MaxUnavailableStatefulSet (off in 1.32), so it is dropped. Mutates `sts`; idempotent.
 */
export function defaultStatefulSet(sts: StatefulSet): void {
  if (!sts.spec || typeof sts.spec !== 'object') return;
  const spec = sts.spec;
  spec.replicas ??= 1;
  spec.podManagementPolicy ??= 'OrderedReady';
  spec.updateStrategy ??= {};
  const strategy = spec.updateStrategy;
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    strategy.rollingUpdate ??= {};
    strategy.rollingUpdate.partition ??= 0;
    delete strategy.rollingUpdate.maxUnavailable;
  }
  spec.revisionHistoryLimit ??= 10;
  spec.persistentVolumeClaimRetentionPolicy ??= {};
  spec.persistentVolumeClaimRetentionPolicy.whenDeleted ??= 'Retain';
  spec.persistentVolumeClaimRetentionPolicy.whenScaled ??= 'Retain';
  if (spec.template && typeof spec.template === 'object') defaultPodTemplate(spec.template);
  for (const claim of Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : []) {
    if (claim?.spec && typeof claim.spec === 'object') claim.spec.volumeMode ??= 'Filesystem';
  }
}
