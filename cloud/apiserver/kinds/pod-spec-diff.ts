import { stableJson, withoutEmpty } from '../../client/object-meta.js';

/**
 * The comparison and the diff behind kube's "pod updates may not change fields other than …"
 * (apiequality.Semantic.DeepEqual, then go-cmp's cmp.Diff of the two core.PodSpecs). Semantic
 * equality treats an empty list or map as an unset one; a value set to null is unset. The diff
 * follows cmp's layout (two fields of context either side of a change, the rest counted as
 * identical fields) with values written as JSON rather than as Go literals.
 */

/** core.PodSpec's fields in their Go order (the internal type: hostNetwork and the like sit in its SecurityContext). */
const POD_SPEC_FIELDS = [
  'volumes', 'initContainers', 'containers', 'ephemeralContainers', 'restartPolicy', 'terminationGracePeriodSeconds',
  'activeDeadlineSeconds', 'dnsPolicy', 'nodeSelector', 'serviceAccountName', 'automountServiceAccountToken', 'nodeName',
  'securityContext', 'imagePullSecrets', 'hostname', 'subdomain', 'setHostnameAsFQDN', 'affinity', 'schedulerName',
  'tolerations', 'hostAliases', 'priorityClassName', 'priority', 'preemptionPolicy', 'dnsConfig', 'readinessGates',
  'runtimeClassName', 'overhead', 'enableServiceLinks', 'topologySpreadConstraints', 'os', 'schedulingGates',
  'resourceClaims', 'resources',
];

const GO_NAMES: Record<string, string> = { dnsPolicy: 'DNSPolicy', setHostnameAsFQDN: 'SetHostnameAsFQDN', dnsConfig: 'DNSConfig', os: 'OS' };
const CONTEXT = 2;

export function semanticallyEqual(a: unknown, b: unknown): boolean {
  return stableJson(withoutEmpty(a) ?? null) === stableJson(withoutEmpty(b) ?? null);
}

/** cmp.Diff(old, next) of two pod specs, as kube appends it to the Forbidden message. */
export function podSpecDiff(old: Record<string, unknown>, next: Record<string, unknown>): string {
  const extra = [...Object.keys(old), ...Object.keys(next)].filter((k) => !POD_SPEC_FIELDS.includes(k));
  const fields = [...POD_SPEC_FIELDS, ...new Set(extra)];
  const changed = fields.map((f) => !semanticallyEqual(old[f], next[f]));
  const shown = fields.map((_, i) => changed.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some(Boolean));
  const width = Math.max(...fields.filter((_, i) => shown[i]).map((f) => goName(f).length + 1));
  const lines = ['  core.PodSpec{'];
  let hidden = 0;
  const flushHidden = (): void => {
    if (hidden > 0) lines.push(`  \t... // ${hidden} identical field${hidden === 1 ? '' : 's'}`);
    hidden = 0;
  };
  fields.forEach((field, i) => {
    if (!shown[i]) return void hidden++;
    flushHidden();
    const label = `${goName(field)}:`.padEnd(width);
    if (!changed[i]) return void lines.push(`  \t${label} ${goValue(next[field])},`);
    lines.push(`- \t${label} ${goValue(old[field])},`, `+ \t${label} ${goValue(next[field])},`);
  });
  flushHidden();
  lines.push('  }');
  return lines.join('\n');
}

function goName(field: string): string {
  return GO_NAMES[field] ?? field[0]!.toUpperCase() + field.slice(1);
}

function goValue(value: unknown): string {
  const v = withoutEmpty(value);
  return v === undefined ? 'nil' : JSON.stringify(v);
}
