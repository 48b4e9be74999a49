import type { EdgeComponentState } from '../../edge/local-api-components.js';
import { localApiRequest, resolveEdge, type EdgeAddress } from '../edge-local-api.js';
import { textTable } from '../text-table.js';

/** `kedge component … --node <edge>`: the edge's own components (kube-proxy, kedge-cni), through its local API. */

function table(node: string, states: EdgeComponentState[]): string {
  const rows = [['NAME', 'NODE', 'STATUS', 'SINCE']];
  for (const s of states) rows.push([s.name, node, s.running ? 'Running' : 'Stopped', s.since]);
  return textTable(rows);
}

export async function edgeComponentStatus(address: EdgeAddress, name: string | undefined): Promise<{ json: unknown; text: string }> {
  const edge = await resolveEdge(address);
  if (name) {
    const state = (await localApiRequest(edge, 'GET', `/components/${encodeURIComponent(name)}`)) as EdgeComponentState;
    return { json: state, text: table(edge.node, [state]) };
  }
  const { items } = (await localApiRequest(edge, 'GET', '/components')) as { items: EdgeComponentState[] };
  return { json: { items }, text: table(edge.node, items) };
}

export async function edgeComponentAction(address: EdgeAddress, name: string, action: 'start' | 'stop'): Promise<{ json: unknown; text: string }> {
  const edge = await resolveEdge(address);
  const state = (await localApiRequest(edge, 'POST', `/components/${encodeURIComponent(name)}/${action}`)) as EdgeComponentState;
  return { json: state, text: `${state.name} on ${edge.node}: ${state.running ? 'running' : 'stopped'} since ${state.since}` };
}
