import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { LogLine, Runtime, Sandbox } from '../runtime/runtime.js';
import { refuse, replyLater } from '../local-api-replies.js';
import { containerByPrefix, criContainer, criContainerStatus, criSandbox, nanos, type CriContainer } from './cri-view.js';
import { groupUsages, type GroupUsage } from './process-usage.js';

export interface CriRoutesDeps {
  runtime: Runtime;
  clock: Clock;
  logger: Logger;
}

/** ContainerStats, as CRI says it: `cpu` and `memory` null where the runtime cannot tell (simulated containers). */
export interface CriContainerStats {
  attributes: Pick<CriContainer, 'id' | 'metadata' | 'labels' | 'annotations'>;
  cpu: { timestamp: string; usageCoreNanoSeconds: { value: string } } | null;
  memory: { timestamp: string; workingSetBytes: { value: string } } | null;
  writableLayer: null;
}

/**
 * Reads of the runtime shaped as CRI's, for `kedge crictl` (and curl). They ask only the
 * runtime, so they answer while the edge is cut off from the cloud.
 *   GET /cri/pods                      → { items: CriPodSandbox[] }
 *   GET /cri/containers                → { containers: CriContainer[] }
 *   GET /cri/containers/<id>           → CriContainerStatus (an id or a unique prefix of one)
 *   GET /cri/containers/<id>/logs      → text: its log (?tail=N, ?timestamps=true)
 *   GET /cri/stats                     → { stats: CriContainerStats[] }
 */
export function routeCri(deps: CriRoutesDeps, req: IncomingMessage, res: ServerResponse, parts: string[], query: URLSearchParams): void {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') return refuse(res, 'MethodNotAllowed', `${method} /${parts.join('/')} is not allowed; the CRI reads take GET`);
  const [, what, id, sub, ...rest] = parts;
  const later = (work: Promise<unknown>): void => replyLater(res, deps.logger, work);
  if (what === 'pods' && id === undefined) return later(listPods(deps.runtime));
  if (what === 'containers' && id === undefined) return later(listContainers(deps.runtime));
  if (what === 'containers' && sub === undefined) return later(inspect(deps.runtime, id!));
  if (what === 'containers' && sub === 'logs' && rest.length === 0) return later(logsOf(deps.runtime, id!, query));
  if (what === 'stats' && id === undefined) return later(stats(deps));
  refuse(res, 'NotFound', `no such path /${parts.join('/')} (the CRI reads: /cri/pods, /cri/containers, /cri/containers/<id>, /cri/containers/<id>/logs, /cri/stats)`);
}

async function listPods(runtime: Runtime): Promise<unknown> {
  return { items: (await runtime.listSandboxes()).map(criSandbox) };
}

async function listContainers(runtime: Runtime): Promise<unknown> {
  const sandboxOf = bySandbox(await runtime.listSandboxes());
  return { containers: (await runtime.listContainers()).map((c) => criContainer(c, sandboxOf.get(c.sandboxId))) };
}

async function inspect(runtime: Runtime, prefix: string): Promise<unknown> {
  const c = containerByPrefix(await runtime.listContainers(), prefix);
  const sandbox = bySandbox(await runtime.listSandboxes()).get(c.sandboxId);
  const group = (await runtime.processOf?.(c.id))?.group;
  const usage = group === undefined ? undefined : (await groupUsages([group])).get(group);
  return criContainerStatus(c, sandbox, runtime.name, usage?.mainPid);
}

async function logsOf(runtime: Runtime, prefix: string, query: URLSearchParams): Promise<string> {
  const c = containerByPrefix(await runtime.listContainers(), prefix);
  const tail = Number(query.get('tail') ?? -1);
  let lines: LogLine[] = await runtime.logs(c.id);
  if (Number.isInteger(tail) && tail >= 0) lines = tail === 0 ? [] : lines.slice(-tail);
  const stamp = query.get('timestamps') === 'true';
  return lines.map((l) => (stamp ? `${new Date(l.time).toISOString()} ${l.text}` : l.text) + '\n').join('');
}

async function stats(deps: CriRoutesDeps): Promise<unknown> {
  const { runtime, clock } = deps;
  const sandboxOf = bySandbox(await runtime.listSandboxes());
  const containers = await runtime.listContainers();
  const groups = new Map<string, number>();
  for (const c of containers) {
    const group = c.state === 'running' ? (await runtime.processOf?.(c.id))?.group : undefined;
    if (group !== undefined) groups.set(c.id, group);
  }
  const usages = await groupUsages([...groups.values()]);
  const at = nanos(clock.now());
  return {
    stats: containers.map((c): CriContainerStats => {
      const { id, metadata, labels, annotations } = criContainer(c, sandboxOf.get(c.sandboxId));
      const group = groups.get(c.id);
      return { attributes: { id, metadata, labels, annotations }, ...usageOf(group === undefined ? undefined : usages.get(group), at), writableLayer: null };
    }),
  };
}

function usageOf(usage: GroupUsage | undefined, at: string): Pick<CriContainerStats, 'cpu' | 'memory'> {
  if (!usage) return { cpu: null, memory: null };
  return {
    cpu: { timestamp: at, usageCoreNanoSeconds: { value: String(Math.round(usage.cpuNs)) } },
    memory: { timestamp: at, workingSetBytes: { value: String(usage.memoryBytes) } },
  };
}

const bySandbox = (sandboxes: readonly Sandbox[]): Map<string, Sandbox> => new Map(sandboxes.map((s) => [s.id, s]));
