import type { Endpoints, Service, ServicePort } from '../../../shared/service-types.js';
import { ageColumn, nameColumn } from './printers.js';
import type { Printer } from './registry.js';
import { age } from '../rest/tables.js';

/** `kubectl get services` and `kubectl get endpoints`, as kube-apiserver's printers (printService, printEndpoints). */

export const servicePrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Type', type: 'string', description: 'type determines how the Service is exposed.' },
    { name: 'Cluster-IP', type: 'string', description: 'clusterIP is the IP address of the service and is usually assigned randomly.' },
    { name: 'External-IP', type: 'string', description: 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.' },
    { name: 'Port(s)', type: 'string', description: 'The list of ports that are exposed by this service.' },
    ageColumn,
    { name: 'Selector', type: 'string', priority: 1, description: 'Route service traffic to pods with label keys and values matching this selector.' },
  ],
  cells(obj, now) {
    const svc = obj as Service;
    const spec = svc.spec ?? {};
    return [
      svc.metadata.name ?? '',
      spec.type ?? '',
      spec.clusterIPs?.[0] ?? '<none>',
      externalIP(svc),
      portsText(spec.ports ?? []) || '<none>',
      age(svc.metadata.creationTimestamp, now),
      labelsText(spec.selector),
    ];
  },
};

/** "80/TCP", "80:30080/TCP", comma-separated (makePortString). */
export function portsText(ports: readonly ServicePort[]): string {
  return ports.map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol}` : `${p.port}/${p.protocol}`)).join(',');
}

/** getServiceExternalIP: externalIPs, the load balancer's addresses, or <none>/<pending>. */
function externalIP(svc: Service): string {
  const external = svc.spec?.externalIPs ?? [];
  switch (svc.spec?.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip || i.hostname || '').filter(Boolean);
      const all = [...ingress, ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return svc.spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

/** labels.FormatLabels: "k=v,…" sorted by key, or "<none>". */
export function labelsText(labels: Record<string, string> | undefined): string {
  const pairs = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return pairs.length > 0 ? pairs.map(([k, v]) => `${k}=${v}`).join(',') : '<none>';
}

export const endpointsPrinter: Printer = {
  columns: [nameColumn, { name: 'Endpoints', type: 'string', description: 'The set of all endpoints is the union of all subsets.' }, ageColumn],
  cells(obj, now) {
    const ep = obj as Endpoints;
    return [ep.metadata.name ?? '', endpointsText(ep), age(ep.metadata.creationTimestamp, now)];
  },
};

const shownEndpoints = 3;

/** The first three ready "ip:port" pairs, then " + N more..."; "<none>" without subsets (formatEndpoints). */
export function endpointsText(ep: Endpoints): string {
  const subsets = ep.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const shown: string[] = [];
  let count = 0;
  for (const subset of subsets) {
    const addresses = subset.addresses ?? [];
    const targets = (subset.ports ?? []).length === 0 ? addresses.map((a) => a.ip) : (subset.ports ?? []).flatMap((p) => addresses.map((a) => hostPort(a.ip, p.port)));
    count += targets.length;
    for (const t of targets) if (shown.length < shownEndpoints) shown.push(t);
  }
  const text = shown.join(',');
  return count > shownEndpoints ? `${text} + ${count - shownEndpoints} more...` : text;
}

function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}
