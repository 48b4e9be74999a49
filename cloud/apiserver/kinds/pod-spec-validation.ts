import type { StatusCause } from '../../../shared/errors.js';
import { required, unsupported } from '../admission/admission.js';
import { validateAnnotations, validateLabels } from '../admission/meta-validation.js';
import { dns1123LabelErrors, duplicate, forbidden, inclusiveRangeError, invalidCauses } from '../admission/name-formats.js';
import { validatePodSpecQuantities } from '../admission/quantity-validation.js';
import { hostPortConflicts, lifecycleCauses, probeCauses, validateEnv, validateEnvFrom, validatePorts } from './container-validation.js';
import { validateVolumeMounts, validateVolumes } from './pod-volume-validation.js';

/**
 * kube 1.32's ValidatePodSpec (and ValidatePodTemplateSpec), the parts users meet first, for a
 * Pod's spec and every pod template (Deployments, ReplicaSets, DaemonSets, StatefulSets, Jobs,
 * CronJobs) alike, with field paths under `at` as kube names them. Enums the schema checks
 * (protocol, dnsPolicy, imagePullPolicy, …) and fields kube defaults before validating are not
 * checked again here.
 */

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const itemsOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const MAX_INT32 = 2 ** 31 - 1;

export interface PodSpecOptions {
  /** A Pod's own spec (not a template): images may not carry spaces at either end. */
  isPod: boolean;
}

export function validatePodSpec(spec: unknown, at: string, opts: PodSpecOptions): StatusCause[] {
  if (!isMap(spec)) return [required(`${at}.containers`)];
  const volumes = validateVolumes(spec.volumes, `${at}.volumes`);
  const causes = [...volumes.causes, ...validateContainers(spec.containers, volumes.names, `${at}.containers`)];
  causes.push(...validateInitContainers(spec.initContainers, itemsOf(spec.containers), volumes.names, `${at}.initContainers`));
  const policy = spec.restartPolicy;
  if (policy !== undefined && !['Always', 'OnFailure', 'Never'].includes(text(policy))) causes.push(unsupported(`${at}.restartPolicy`, policy, ['Always', 'OnFailure', 'Never']));
  causes.push(...validateLabels(spec.nodeSelector, `${at}.nodeSelector`), ...deadlineCauses(spec.activeDeadlineSeconds, `${at}.activeDeadlineSeconds`));
  for (const key of ['hostname', 'subdomain']) {
    const name = text(spec[key]);
    if (name !== '') causes.push(...invalidCauses(`${at}.${key}`, name, dns1123LabelErrors(name)));
  }
  causes.push(...validatePodSpecQuantities(spec, at));
  return opts.isPod ? [...causes, ...untrimmedImages(spec, at)] : causes;
}

/** ValidatePodTemplateSpec: kube names the template's labels and annotations `<at>.labels`, `<at>.annotations` (no `metadata`). */
export function validatePodTemplate(template: Template, at: string): StatusCause[] {
  return [...validatePodTemplateMeta(template, at), ...validatePodSpec(template.spec, `${at}.spec`, { isPod: false })];
}

type Template = { metadata?: { labels?: unknown; annotations?: unknown }; spec?: unknown };

export function validatePodTemplateMeta(template: Template, at: string): StatusCause[] {
  const meta = template.metadata ?? {};
  return [...validateLabels(meta.labels, `${at}.labels`), ...validateAnnotations(meta.annotations, `${at}.annotations`)];
}

function deadlineCauses(value: unknown, field: string): StatusCause[] {
  if (typeof value !== 'number' || (value >= 1 && value <= MAX_INT32)) return [];
  return invalidCauses(field, value, [inclusiveRangeError(1, MAX_INT32)]);
}

/** validateContainerCommon: what every container must be, regular or init. */
function containerCommon(c: Json, volumes: Set<string>, at: string): StatusCause[] {
  const name = text(c.name);
  const causes = name === '' ? [required(`${at}.name`)] : invalidCauses(`${at}.name`, name, dns1123LabelErrors(name));
  if (text(c.image) === '') causes.push(required(`${at}.image`));
  causes.push(...validatePorts(c.ports, `${at}.ports`), ...validateEnv(c.env, `${at}.env`), ...validateEnvFrom(c.envFrom, `${at}.envFrom`));
  return [...causes, ...validateVolumeMounts(c.volumeMounts, volumes, `${at}.volumeMounts`)];
}

function handlersAndProbes(c: Json, at: string): StatusCause[] {
  return [
    ...lifecycleCauses(c.lifecycle, `${at}.lifecycle`),
    ...(['livenessProbe', 'readinessProbe', 'startupProbe'] as const).flatMap((p) => probeCauses(c[p], p, `${at}.${p}`)),
  ];
}

function validateContainers(list: unknown, volumes: Set<string>, at: string): StatusCause[] {
  const containers = itemsOf(list);
  if (containers.length === 0) return [required(at)];
  const names = new Set<string>();
  const causes = containers.flatMap((item, i) => {
    const c = isMap(item) ? item : {};
    const field = `${at}[${i}]`;
    const found = containerCommon(c, volumes, field);
    const name = text(c.name);
    if (names.has(name)) found.push(duplicate(`${field}.name`, name));
    else names.add(name);
    found.push(...handlersAndProbes(c, field));
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) found.push(forbidden(`${field}.restartPolicy`, 'may not be set for non-init containers'));
    return found;
  });
  return [...causes, ...hostPortConflicts(containers, at)];
}

/** Init containers: names unique among all containers; probes and lifecycle only for restartable (sidecar) ones. */
function validateInitContainers(list: unknown, regular: unknown[], volumes: Set<string>, at: string): StatusCause[] {
  const names = new Set(regular.map((c) => (isMap(c) ? text(c.name) : '')));
  return itemsOf(list).flatMap((item, i) => {
    const c = isMap(item) ? item : {};
    const field = `${at}[${i}]`;
    const found = containerCommon(c, volumes, field);
    const policy = c.restartPolicy;
    if (policy !== undefined && policy !== null && policy !== 'Always') found.push(unsupported(`${field}.restartPolicy`, policy, ['Always']));
    const name = text(c.name);
    if (names.has(name)) found.push(duplicate(`${field}.name`, name));
    else if (name !== '') names.add(name);
    // kube checks each init container's host ports alone, under index 0 of the list.
    found.push(...hostPortConflicts([c], at));
    if (policy === 'Always') return [...found, ...handlersAndProbes(c, field)];
    const notAllowed = ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'].filter((k) => c[k] !== undefined && c[k] !== null);
    return [...found, ...notAllowed.map((k) => forbidden(`${field}.${k}`, 'may not be set for init containers without restartPolicy=Always'))];
  });
}

/** validateContainersOnlyForPod: a Pod's images (not a template's) may not start or end with spaces. */
function untrimmedImages(spec: Json, at: string): StatusCause[] {
  return ['containers', 'initContainers'].flatMap((list) =>
    itemsOf(spec[list]).flatMap((c, i) => {
      const image = isMap(c) ? text(c.image) : '';
      return image === image.trim() ? [] : invalidCauses(`${at}.${list}[${i}].image`, image, ['must not have leading or trailing whitespace']);
    }),
  );
}
