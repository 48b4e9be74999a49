import type { StatusCause } from '../../../shared/errors.js';
import type { StatefulSet, StatefulSetSpec } from '../../../shared/statefulset-types.js';
import { stableJson } from '../../client/object-meta.js';
import { invalidValue, required, unsupported } from '../admission/admission.js';
import { noActiveDeadline, nonNegative, validateWorkloadSpec } from './apps-validation.js';
import type { AdmissionContext } from './registry.js';

/** ValidateStatefulSet and ValidateStatefulSetUpdate (k8s.io/kubernetes pkg/apis/apps/validation), with kube's wording. */

const MUTABLE_FIELDS = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'] as const;
const FORBIDDEN_UPDATE =
  "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

export function validateStatefulSet(sts: StatefulSet, ctx: AdmissionContext): StatusCause[] {
  const spec = sts.spec;
  const causes = validateWorkloadSpec(spec, 'statefulset');
  if (!spec || typeof spec !== 'object') return causes;
  causes.push(...noActiveDeadline(spec, 'StatefulSet'), ...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit), ...nonNegative('spec.ordinals.start', spec.ordinals?.start));
  causes.push(...podManagementCauses(spec), ...updateStrategyCauses(spec), ...retentionCauses(spec));
  if (ctx.operation === 'update' && ctx.old) causes.push(...updateCauses(spec, (ctx.old as StatefulSet).spec));
  return causes;
}

function podManagementCauses(spec: StatefulSetSpec): StatusCause[] {
  const policy = spec.podManagementPolicy;
  if (policy === undefined) return [required('spec.podManagementPolicy')];
  return policy === 'OrderedReady' || policy === 'Parallel' ? [] : [unsupported('spec.podManagementPolicy', policy, ['OrderedReady', 'Parallel'])];
}

function updateStrategyCauses(spec: StatefulSetSpec): StatusCause[] {
  const at = 'spec.updateStrategy';
  const strategy = spec.updateStrategy ?? {};
  if (strategy.type === 'OnDelete') {
    return strategy.rollingUpdate ? [invalidValue(`${at}.rollingUpdate`, strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'")] : [];
  }
  if (strategy.type !== 'RollingUpdate') return [unsupported(`${at}.type`, strategy.type ?? '', ['OnDelete', 'RollingUpdate'])];
  return nonNegative(`${at}.rollingUpdate.partition`, strategy.rollingUpdate?.partition);
}

function retentionCauses(spec: StatefulSetSpec): StatusCause[] {
  const policy = spec.persistentVolumeClaimRetentionPolicy ?? {};
  return (['whenDeleted', 'whenScaled'] as const).flatMap((field) => {
    const value = policy[field];
    return value === 'Retain' || value === 'Delete' ? [] : [unsupported(`spec.persistentVolumeClaimRetentionPolicy.${field}`, value ?? '', ['Retain', 'Delete'])];
  });
}

/** ValidateStatefulSetUpdate: the spec with its mutable fields put back as they were must not have changed. */
function updateCauses(spec: StatefulSetSpec, old: StatefulSetSpec): StatusCause[] {
  const next: Record<string, unknown> = { ...spec };
  for (const field of MUTABLE_FIELDS) next[field] = old[field];
  return stableJson(next) === stableJson(old) ? [] : [{ reason: 'FieldValueForbidden', message: FORBIDDEN_UPDATE, field: 'spec' }];
}
