/**
 * The protobuf messages kubectl's generators send (`kubectl create namespace|configmap|secret|
 * deployment|service`), as data: field number → JSON name and type. Field numbers are those
 * of k8s.io/api (core/v1, apps/v1) and k8s.io/apimachinery (meta/v1, intstr, resource)
 * generated.proto. Fields not listed are skipped when decoding.
 */

/** Scalars; `quantity`, `intOrString` and `time` are small messages with a JSON scalar form. */
export type Scalar = 'string' | 'int' | 'bool' | 'bytes' | 'quantity' | 'intOrString' | 'time';

export type FieldType = Scalar | Schema | { list: Scalar | Schema } | { map: Scalar };

/**
 * [field number, JSON name, type, 'pointer'?]. A Go pointer field keeps its zero value in
 * JSON (replicas: 0 is not "unset"); other zero values are omitted, as Go's omitempty does.
 */
export type FieldSpec = readonly [number, string, FieldType] | readonly [number, string, FieldType, 'pointer'];

/** A message: its fields in Go struct order (the JSON key order). */
export type Schema = readonly FieldSpec[];

// k8s.io/apimachinery/pkg/apis/meta/v1

const OwnerReference: Schema = [
  [5, 'apiVersion', 'string'],
  [1, 'kind', 'string'],
  [3, 'name', 'string'],
  [4, 'uid', 'string'],
  [6, 'controller', 'bool', 'pointer'],
  [7, 'blockOwnerDeletion', 'bool', 'pointer'],
];

export const ObjectMeta: Schema = [
  [1, 'name', 'string'],
  [2, 'generateName', 'string'],
  [3, 'namespace', 'string'],
  [5, 'uid', 'string'],
  [6, 'resourceVersion', 'string'],
  [7, 'generation', 'int'],
  [8, 'creationTimestamp', 'time'],
  [9, 'deletionTimestamp', 'time'],
  [10, 'deletionGracePeriodSeconds', 'int', 'pointer'],
  [11, 'labels', { map: 'string' }],
  [12, 'annotations', { map: 'string' }],
  [13, 'ownerReferences', { list: OwnerReference }],
  [14, 'finalizers', { list: 'string' }],
];

const LabelSelectorRequirement: Schema = [
  [1, 'key', 'string'],
  [2, 'operator', 'string'],
  [3, 'values', { list: 'string' }],
];

export const LabelSelector: Schema = [
  [1, 'matchLabels', { map: 'string' }],
  [2, 'matchExpressions', { list: LabelSelectorRequirement }],
];

// k8s.io/api/core/v1

const ContainerPort: Schema = [
  [1, 'name', 'string'],
  [2, 'hostPort', 'int'],
  [3, 'containerPort', 'int'],
  [4, 'protocol', 'string'],
  [5, 'hostIP', 'string'],
];

const EnvVar: Schema = [
  [1, 'name', 'string'],
  [2, 'value', 'string'],
];

const ResourceRequirements: Schema = [
  [1, 'limits', { map: 'quantity' }],
  [2, 'requests', { map: 'quantity' }],
];

const Container: Schema = [
  [1, 'name', 'string'],
  [2, 'image', 'string'],
  [3, 'command', { list: 'string' }],
  [4, 'args', { list: 'string' }],
  [5, 'workingDir', 'string'],
  [6, 'ports', { list: ContainerPort }],
  [7, 'env', { list: EnvVar }],
  [8, 'resources', ResourceRequirements],
  [13, 'terminationMessagePath', 'string'],
  [20, 'terminationMessagePolicy', 'string'],
  [14, 'imagePullPolicy', 'string'],
  [16, 'stdin', 'bool'],
  [17, 'stdinOnce', 'bool'],
  [18, 'tty', 'bool'],
];

const PodSpec: Schema = [
  [20, 'initContainers', { list: Container }],
  [2, 'containers', { list: Container }],
  [3, 'restartPolicy', 'string'],
  [4, 'terminationGracePeriodSeconds', 'int', 'pointer'],
  [5, 'activeDeadlineSeconds', 'int', 'pointer'],
  [6, 'dnsPolicy', 'string'],
  [7, 'nodeSelector', { map: 'string' }],
  [8, 'serviceAccountName', 'string'],
  [9, 'serviceAccount', 'string'],
  [10, 'nodeName', 'string'],
  [11, 'hostNetwork', 'bool'],
  [16, 'hostname', 'string'],
  [17, 'subdomain', 'string'],
  [19, 'schedulerName', 'string'],
  [24, 'priorityClassName', 'string'],
  [25, 'priority', 'int', 'pointer'],
  [29, 'runtimeClassName', 'string'],
];

export const PodTemplateSpec: Schema = [
  [1, 'metadata', ObjectMeta],
  [2, 'spec', PodSpec],
];

const ServicePort: Schema = [
  [1, 'name', 'string'],
  [2, 'protocol', 'string'],
  [6, 'appProtocol', 'string'],
  [3, 'port', 'int'],
  [4, 'targetPort', 'intOrString'],
  [5, 'nodePort', 'int'],
];

const ServiceSpec: Schema = [
  [1, 'ports', { list: ServicePort }],
  [2, 'selector', { map: 'string' }],
  [3, 'clusterIP', 'string'],
  [18, 'clusterIPs', { list: 'string' }],
  [4, 'type', 'string'],
  [5, 'externalIPs', { list: 'string' }],
  [7, 'sessionAffinity', 'string'],
  [8, 'loadBalancerIP', 'string'],
  [9, 'loadBalancerSourceRanges', { list: 'string' }],
  [10, 'externalName', 'string'],
];

// k8s.io/api/apps/v1

const RollingUpdateDeployment: Schema = [
  [1, 'maxUnavailable', 'intOrString'],
  [2, 'maxSurge', 'intOrString'],
];

const DeploymentStrategy: Schema = [
  [1, 'type', 'string'],
  [2, 'rollingUpdate', RollingUpdateDeployment],
];

const DeploymentSpec: Schema = [
  [1, 'replicas', 'int', 'pointer'],
  [2, 'selector', LabelSelector],
  [3, 'template', PodTemplateSpec],
  [4, 'strategy', DeploymentStrategy],
  [5, 'minReadySeconds', 'int'],
  [6, 'revisionHistoryLimit', 'int', 'pointer'],
  [7, 'paused', 'bool'],
  [9, 'progressDeadlineSeconds', 'int', 'pointer'],
];

/** Top-level kinds by `apiVersion kind`. Status is not decoded: a create or update ignores it. */
export const kindSchemas: Readonly<Record<string, Schema>> = {
  'v1 Namespace': [
    [1, 'metadata', ObjectMeta],
    [2, 'spec', [[1, 'finalizers', { list: 'string' }]]],
  ],
  'v1 ConfigMap': [
    [1, 'metadata', ObjectMeta],
    [4, 'immutable', 'bool', 'pointer'],
    [2, 'data', { map: 'string' }],
    [3, 'binaryData', { map: 'bytes' }],
  ],
  'v1 Secret': [
    [1, 'metadata', ObjectMeta],
    [5, 'immutable', 'bool', 'pointer'],
    [2, 'data', { map: 'bytes' }],
    [4, 'stringData', { map: 'string' }],
    [3, 'type', 'string'],
  ],
  'v1 Service': [
    [1, 'metadata', ObjectMeta],
    [2, 'spec', ServiceSpec],
  ],
  'v1 Pod': [
    [1, 'metadata', ObjectMeta],
    [2, 'spec', PodSpec],
  ],
  'apps/v1 Deployment': [
    [1, 'metadata', ObjectMeta],
    [2, 'spec', DeploymentSpec],
  ],
  // kubectl create pdb
  'policy/v1 PodDisruptionBudget': [
    [1, 'metadata', ObjectMeta],
    [2, 'spec', [[1, 'minAvailable', 'intOrString', 'pointer'], [2, 'selector', LabelSelector], [3, 'maxUnavailable', 'intOrString', 'pointer'], [4, 'unhealthyPodEvictionPolicy', 'string', 'pointer']]],
  ],
};
