import type { Deployment, PodTemplateSpec, ReplicaSet } from '../../shared/apps-types.js';
import { defaultContainer } from './pod-defaults.js';

/**
 * apps/v1 defaulting as kube-apiserver does it (SetDefaults_Deployment, SetDefaults_ReplicaSet,
 * and SetDefaults_PodSpec inside the template). Each function mutates what it is given and is
 * idempotent, so the Deployment controller uses defaultPodTemplate to compare templates too.
 */

export function defaultPodTemplate(template: PodTemplateSpec): void {
  template.metadata ??= {};
  template.spec ??= { containers: [] };
  const spec = template.spec;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    if (c && typeof c === 'object') defaultContainer(c);
  }
}

export function defaultReplicaSet(rs: ReplicaSet): void {
  rs.spec ??= {} as ReplicaSet['spec'];
  rs.spec.replicas ??= 1;
  if (rs.spec.template && typeof rs.spec.template === 'object') defaultPodTemplate(rs.spec.template);
}

export function defaultDeployment(d: Deployment): void {
  d.spec ??= {} as Deployment['spec'];
  const spec = d.spec;
  spec.replicas ??= 1;
  spec.strategy ??= {};
  spec.strategy.type ??= 'RollingUpdate';
  if (spec.strategy.type === 'RollingUpdate') {
    spec.strategy.rollingUpdate ??= {};
    spec.strategy.rollingUpdate.maxUnavailable ??= '25%';
    spec.strategy.rollingUpdate.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  if (spec.template && typeof spec.template === 'object') defaultPodTemplate(spec.template);
}
