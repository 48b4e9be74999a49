import type { StatusCause } from '../../../shared/errors.js';
import type { Container, Pod, PodSpec, Toleration } from '../../../shared/types.js';
import { normalizePodSpecQuantities } from '../admission/quantity-validation.js';
import type { ResourceStrategy } from './registry.js';
import { defaultContainer, DEFAULT_TOLERATION_SECONDS } from '../../client/pod-defaults.js';
import { admitRuntimeClass } from '../admission/runtime-class-admission.js';
import { validatePodSpec } from './pod-spec-validation.js';
import { setOrDelete, validatePodUpdate } from './pod-update-validation.js';

/**
 * Pod defaulting as kube-apiserver does it (SetDefaults_Pod, the DefaultTolerationSeconds
 * admission plugin, PodStrategy.PrepareForCreate), and the validation kedge needs.
 */
export const podStrategy: ResourceStrategy = {
  normalize(obj) {
    const pod = obj as Pod;
    normalizePodSpecQuantities(pod.spec);
    if (pod.spec && typeof pod.spec === 'object') defaultPodSpec(pod.spec);
  },
  defaultOnCreate(obj) {
    const pod = obj as Pod;
    pod.spec ??= { containers: [] };
    const spec = pod.spec;
    defaultPodSpec(spec);
    spec.priority ??= 0;
    spec.preemptionPolicy ??= 'PreemptLowerPriority';
    spec.tolerations = withDefaultTolerations(spec.tolerations ?? [], pod.metadata.labels?.[AUTONOMY_LABEL] === 'autonomy');
    pod.status = { phase: 'Pending', qosClass: qosClass(spec.containers ?? []) };
  },
  defaultOnUpdate(obj, ctx) {
    // The Priority plugin keeps the priority it set on create; DefaultTolerationSeconds runs on updates too.
    const spec = (obj as Pod).spec;
    const old = (ctx.old as Pod | undefined)?.spec;
    if (!spec || typeof spec !== 'object' || !old) return;
    setOrDelete(spec, 'priority', old.priority);
    setOrDelete(spec, 'preemptionPolicy', old.preemptionPolicy);
    if (Array.isArray(spec.tolerations ?? [])) spec.tolerations = withDefaultTolerations(spec.tolerations ?? [], (obj as Pod).metadata.labels?.[AUTONOMY_LABEL] === 'autonomy');
  },
  validate(obj, ctx) {
    // kube's ValidatePodStatusUpdate leaves the spec alone: a pod stored before a rule existed still reports its status.
    if (ctx.subresource === 'status') return [];
    const causes = validatePod(obj as Pod);
    return ctx.operation === 'update' && ctx.old ? [...causes, ...validatePodUpdate(obj as Pod, ctx.old as Pod)] : causes;
  },
  admitCreate: admitRuntimeClass,
  fields(obj) {
    const pod = obj as Pod;
    return { 'spec.nodeName': pod.spec?.nodeName ?? '', 'status.phase': pod.status?.phase ?? '', 'spec.schedulerName': pod.spec?.schedulerName ?? '', 'spec.restartPolicy': pod.spec?.restartPolicy ?? '', 'status.podIP': pod.status?.podIP ?? '' };
  },
};

/** SetDefaults_PodSpec and SetDefaults_Container: kube applies them on every decode, so on updates too. */
function defaultPodSpec(spec: PodSpec): void {
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  spec.enableServiceLinks ??= true;
  for (const c of [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])]) {
    if (c && typeof c === 'object') defaultContainer(c);
  }
}

/** KubeEdge's label for pods that stay on their node however long it is unreachable (value "autonomy"). */
export const AUTONOMY_LABEL = 'app-offline.kubeedge.io';

/**
 * The DefaultTolerationSeconds plugin: tolerate not-ready and unreachable nodes for 300 s. An
 * autonomous pod tolerates an unreachable node without a limit (the node's autonomy duration,
 * if any, decides).
 */
function withDefaultTolerations(tolerations: Toleration[], autonomous: boolean): Toleration[] {
  const out = [...tolerations];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    const covered = tolerations.some((t) => (t.key === key || (t.key === undefined && t.operator === 'Exists')) && (t.effect === undefined || t.effect === 'NoExecute'));
    const forever = autonomous && key === 'node.kubernetes.io/unreachable';
    if (!covered) out.push(forever ? { key, operator: 'Exists', effect: 'NoExecute' } : { key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: DEFAULT_TOLERATION_SECONDS });
  }
  return out;
}

function qosClass(containers: Container[]): string {
  const resources = containers.map((c) => c.resources ?? {});
  const any = resources.some((r) => Object.keys(r.requests ?? {}).length + Object.keys(r.limits ?? {}).length > 0);
  if (!any) return 'BestEffort';
  const guaranteed = resources.every((r) => ['cpu', 'memory'].every((k) => r.limits?.[k] !== undefined && (r.requests?.[k] ?? r.limits[k]) === r.limits[k]));
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function validatePod(pod: Pod): StatusCause[] {
  return validatePodSpec(pod.spec, 'spec', { isPod: true });
}
