import { allVerbs, apiVersionOf, type ResourceDef, type SubresourceDef } from './registry.js';

/**
 * docs/api.md's table of the served kinds, written from the resource table (so it cannot
 * drift: test/docs/api-table.test.ts compares it, and rewrites it with KEDGE_WRITE_API_TABLE=1),
 * with each limitation that remains beside the kind it limits.
 */

/** What kedge leaves out of a kind that kube serves, by resource (group/resource for other groups). */
export const kindLimitations: Record<string, string> = {
  pods: 'no `ephemeralcontainers`, `proxy` or `resize` subresources; `exec`, `attach` and `portforward` reach the edge over the sync link',
  events: 'also served as events.k8s.io/v1 by kube; kedge serves core v1 only',
  componentstatuses: 'read-only: get, list; every answer carries kube\'s `Warning: 299 - "v1 ComponentStatus is deprecated in v1.19+"` header',
  'discovery.k8s.io/endpointslices': 'kept for Services with a selector, and for `default/kubernetes` by every cloud (its live clouds); no mirroring of hand-made Endpoints; no zones, hints or trigger-time annotation; refilled in name order',
  'policy/poddisruptionbudgets': "a pod's scale is found through Deployments, ReplicaSets and StatefulSets only",
  serviceaccounts: 'no tokens: no `token` subresource (TokenRequest) and no ServiceAccount token Secrets',
  'rbac.authorization.k8s.io/roles': 'an update that keeps rules, roleRef and subjects skips the escalation check',
  'rbac.authorization.k8s.io/clusterroles': 'an update that keeps rules, roleRef and subjects skips the escalation check',
  'sync.kedge.io/nodesyncs': 'kedge\'s own kind: one per edge node, what it acknowledged',
};

const keyOf = (def: ResourceDef, sub?: string): string => `${def.group ? `${def.group}/` : ''}${def.resource}${sub ? `/${sub}` : ''}`;
const code = (words: readonly string[]): string => words.map((w) => `\`${w}\``).join(', ');
const statusVerbs = ['get', 'patch', 'update'];

function subresourceCell(def: ResourceDef, sub: SubresourceDef): string {
  const notes: string[] = [];
  if (sub.verbs.join() !== statusVerbs.join()) notes.push(sub.verbs.join(', '));
  if (sub.kind && sub.kind !== def.kind && !sub.connect) notes.push(`${sub.group !== undefined ? apiVersionOf({ group: sub.group, version: sub.version ?? def.version }) : apiVersionOf(def)} ${sub.kind}`);
  return `\`${sub.name}\`${notes.length ? ` (${notes.join('; ')})` : ''}`;
}

function limitationsOf(def: ResourceDef): string {
  const own = kindLimitations[keyOf(def)];
  const subs = def.subresources.flatMap((s) => (kindLimitations[keyOf(def, s.name)] ? [`\`${s.name}\`: ${kindLimitations[keyOf(def, s.name)]}`] : []));
  return [own, ...subs].filter(Boolean).join('; ');
}

export function kindsTable(defs: readonly ResourceDef[]): string {
  const header = '| group/version | resource (kind) | shortNames | categories | scope | verbs | subresources | limitations |\n|---|---|---|---|---|---|---|---|';
  const rows = defs.map((def) => [
    `\`${apiVersionOf(def)}\``,
    `${def.resource} (${def.kind})`,
    code(def.shortNames),
    code(def.categories),
    def.namespaced ? 'namespaced' : 'cluster',
    (def.verbs ?? allVerbs).join(', '),
    def.subresources.map((s) => subresourceCell(def, s)).join(', '),
    limitationsOf(def),
  ]);
  return [header, ...rows.map((cells) => `| ${cells.join(' | ')} |`)].join('\n');
}

export const TABLE_BEGIN = '<!-- kinds table: generated from the resource table (cloud/apiserver/kinds/api-table.ts) -->';
export const TABLE_END = '<!-- end of kinds table -->';

/** `doc` with the text between the markers replaced by `table`. */
export function withKindsTable(doc: string, table: string): string {
  const begin = doc.indexOf(TABLE_BEGIN);
  const end = doc.indexOf(TABLE_END);
  if (begin < 0 || end < begin) throw new Error('docs/api.md lacks the kinds table markers');
  return `${doc.slice(0, begin + TABLE_BEGIN.length)}\n${table}\n${doc.slice(end)}`;
}
