/**
 * What client-node's models do not carry and kube's OpenAPI does: the enums of the fields
 * kube declares `+enum` (its descriptions list them as "Possible enum values"), the fields
 * that are resource quantities (client-node types them as plain strings), and the packages
 * of the shared types (client-node names classes by version only).
 *
 * `checked`: the schema validation rejects other values with kube's "Unsupported value"
 * (422). Enums whose field a kind's own validation already checks (restartPolicy, a
 * Service's type, a Deployment's strategy, …) are listed for `explain` only.
 */

export interface EnumField {
  values: string[];
  checked: boolean;
}

const checked = (...values: string[]): EnumField => ({ values, checked: true });
const listed = (...values: string[]): EnumField => ({ values, checked: false });
const effects = checked('NoExecute', 'NoSchedule', 'PreferNoSchedule');
const containerEnums = { imagePullPolicy: checked('Always', 'IfNotPresent', 'Never'), terminationMessagePolicy: checked('FallbackToLogsOnError', 'File') };
const trafficPolicy = checked('Cluster', 'Local');
const updateStrategy = { type: listed('OnDelete', 'RollingUpdate') };

/** Model class → JSON field → its enum. */
export const enumFields: Record<string, Record<string, EnumField>> = {
  V1Container: containerEnums,
  V1EphemeralContainer: containerEnums,
  V1ContainerPort: { protocol: checked('SCTP', 'TCP', 'UDP') },
  V1HTTPGetAction: { scheme: checked('HTTP', 'HTTPS') },
  V1PodSpec: {
    dnsPolicy: checked('ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'),
    preemptionPolicy: checked('Never', 'PreemptLowerPriority'),
    restartPolicy: listed('Always', 'Never', 'OnFailure'),
  },
  V1Toleration: { operator: checked('Equal', 'Exists'), effect: effects },
  V1Taint: { effect: effects },
  V1ServiceSpec: {
    externalTrafficPolicy: trafficPolicy,
    internalTrafficPolicy: trafficPolicy,
    sessionAffinity: listed('ClientIP', 'None'),
    type: listed('ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'),
  },
  V1ServicePort: { protocol: listed('SCTP', 'TCP', 'UDP') },
  V1DeploymentStrategy: { type: listed('Recreate', 'RollingUpdate') },
  V1StatefulSetSpec: { podManagementPolicy: listed('OrderedReady', 'Parallel') },
  V1StatefulSetUpdateStrategy: updateStrategy,
  V1DaemonSetUpdateStrategy: updateStrategy,
  V1JobSpec: { completionMode: listed('Indexed', 'NonIndexed') },
  V1CronJobSpec: { concurrencyPolicy: listed('Allow', 'Forbid', 'Replace') },
  V1PersistentVolumeSpec: { persistentVolumeReclaimPolicy: listed('Delete', 'Recycle', 'Retain') },
  V1StorageClass: { volumeBindingMode: listed('Immediate', 'WaitForFirstConsumer') },
  V1NamespaceStatus: { phase: listed('Active', 'Terminating') },
  V1PodStatus: { phase: listed('Failed', 'Pending', 'Running', 'Succeeded', 'Unknown') },
};

/** Model class → JSON fields holding a quantity, or a map of quantities. */
export const quantityFields: Record<string, string[]> = {
  V1ResourceRequirements: ['limits', 'requests'],
  V1VolumeResourceRequirements: ['limits', 'requests'],
  V1NodeStatus: ['allocatable', 'capacity'],
  V1PersistentVolumeSpec: ['capacity'],
  V1PersistentVolumeClaimStatus: ['allocatedResources', 'capacity'],
  V1EmptyDirVolumeSource: ['sizeLimit'],
  V1ResourceFieldSelector: ['divisor'],
  V1Overhead: ['podFixed'],
  V1PodSpec: ['overhead'],
};

/** apimachinery's meta/v1 types, named io.k8s.apimachinery.pkg.apis.meta.v1.<Name> as kube names them. */
export const metaTypes = new Set([
  'V1ObjectMeta', 'V1ListMeta', 'V1LabelSelector', 'V1LabelSelectorRequirement', 'V1OwnerReference', 'V1ManagedFieldsEntry',
  'V1Status', 'V1StatusDetails', 'V1StatusCause', 'V1Condition', 'V1DeleteOptions', 'V1Preconditions',
]);

/** Shared types kube keeps in core/v1 although a non-core kind reaches them first. */
export const coreTypes = new Set(['V1PodTemplateSpec', 'V1PersistentVolumeClaimTemplate', 'V1ObjectReference', 'V1TypedLocalObjectReference']);
