import type { IntOrPercent } from '../../../shared/apps-types.js';
import type { ControllerRevision, DaemonSet, DaemonSetUpdateStrategy } from '../../../shared/daemonset-types.js';
import type { StatusCause } from '../../../shared/errors.js';
import { stableJson } from '../../client/object-meta.js';
import { invalidValue, required, unsupported } from '../admission/admission.js';
import { immutableSelector, intOrPercent, isZero, noActiveDeadline, nonNegative, validateWorkloadSpec } from './apps-validation.js';
import type { AdmissionContext } from './registry.js';

/** ValidateDaemonSet and ValidateControllerRevision (k8s.io/kubernetes pkg/apis/apps/validation), with kube's wording. */

export function validateDaemonSet(ds: DaemonSet, ctx: AdmissionContext): StatusCause[] {
  const spec = ds.spec;
  const causes = [...validateWorkloadSpec(spec, 'daemonset'), ...immutableSelector(ds, ctx)];
  if (!spec || typeof spec !== 'object') return causes;
  causes.push(...noActiveDeadline(spec, 'DaemonSet'), ...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit));
  return [...causes, ...validateUpdateStrategy(spec.updateStrategy ?? {})];
}

function validateUpdateStrategy(strategy: DaemonSetUpdateStrategy): StatusCause[] {
  const at = 'spec.updateStrategy';
  if (strategy.type === 'OnDelete') return [];
  if (strategy.type !== 'RollingUpdate') {
    return [unsupported(at, strategy, ['RollingUpdate', 'OnDelete'])];
  }
  if (!strategy.rollingUpdate || typeof strategy.rollingUpdate !== 'object') return [required(`${at}.rollingUpdate`)];
  const { maxUnavailable, maxSurge } = strategy.rollingUpdate;
  const causes = [
    ...intOrPercent(`${at}.rollingUpdate.maxUnavailable`, maxUnavailable),
    ...intOrPercent(`${at}.rollingUpdate.maxSurge`, maxSurge),
    ...notMoreThan100Percent(`${at}.rollingUpdate.maxUnavailable`, maxUnavailable),
    ...notMoreThan100Percent(`${at}.rollingUpdate.maxSurge`, maxSurge),
  ];
  const hasUnavailable = maxUnavailable !== undefined && !isZero(maxUnavailable);
  const hasSurge = maxSurge !== undefined && !isZero(maxSurge);
  if (hasUnavailable && hasSurge) causes.push(invalidValue(`${at}.rollingUpdate.maxSurge`, maxSurge, 'may not be set when maxUnavailable is non-zero'));
  if (!hasUnavailable && !hasSurge) causes.push({ ...required(`${at}.rollingUpdate.maxUnavailable`), message: 'Required value: cannot be 0 when maxSurge is 0' });
  return causes;
}

function notMoreThan100Percent(field: string, value: IntOrPercent | undefined): StatusCause[] {
  if (typeof value !== 'string' || !/^[0-9]+%$/.test(value)) return [];
  return parseInt(value, 10) > 100 ? [invalidValue(field, value, 'must not be greater than 100%')] : [];
}

export function validateControllerRevision(cr: ControllerRevision, ctx: AdmissionContext): StatusCause[] {
  const causes: StatusCause[] = [];
  if (cr.data === undefined || cr.data === null) causes.push({ ...required('data'), message: 'Required value: data is mandatory' });
  causes.push(...nonNegative('revision', cr.revision));
  const old = ctx.operation === 'update' ? (ctx.old as ControllerRevision | undefined) : undefined;
  if (old && stableJson(old.data) !== stableJson(cr.data)) causes.push(invalidValue('data', cr.data, 'field is immutable'));
  return causes;
}
