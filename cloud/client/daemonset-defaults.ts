import type { DaemonSet } from '../../shared/daemonset-types.js';
import { defaultPodTemplate } from './apps-defaults.js';

/**
 * SetDefaults_DaemonSet: RollingUpdate with maxUnavailable 1 and maxSurge 0, a history of 10
 * revisions, and the pod template's defaults. Mutates `ds`; idempotent (kube defaults on every
 * decode, so the apiserver runs it on updates too).
 */
export function defaultDaemonSet(ds: DaemonSet): void {
  if (!ds.spec || typeof ds.spec !== 'object') return;
  const spec = ds.spec;
  spec.updateStrategy ??= {};
  const strategy = spec.updateStrategy;
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    strategy.rollingUpdate ??= {};
    strategy.rollingUpdate.maxUnavailable ??= 1;
    strategy.rollingUpdate.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  if (spec.template && typeof spec.template === 'object') defaultPodTemplate(spec.template);
}
