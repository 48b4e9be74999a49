import type { KubeObject } from '../../../shared/types.js';
import type { ComponentControl, ComponentState } from '../../components/component.js';
import { nameColumn } from '../kinds/printers.js';
import type { ResourceDef } from '../kinds/registry.js';
import { jsonResponse, methodNotAllowed, type ApiResponse } from '../request.js';

/**
 * The cloud's components over HTTP. Read: core/v1 componentstatuses (what `kubectl get cs`
 * lists) and GET /kedge/v1/components. Act: POST /kedge/v1/components/<name>/stop|start
 * (what `kedge component` sends).
 */
export const COMPONENTS_PATH = '/kedge/v1/components';

interface ComponentStatus extends KubeObject {
  conditions: { type: 'Healthy'; status: 'True' | 'False'; message: string; error?: string }[];
}

export function toComponentStatus(state: ComponentState): ComponentStatus {
  const condition: ComponentStatus['conditions'][number] = state.healthy
    ? { type: 'Healthy', status: 'True', message: state.message }
    : { type: 'Healthy', status: 'False', message: '', error: `${state.message} (since ${state.since})` };
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: state.name }, conditions: [condition] };
}

export function componentStatusResource(control: ComponentControl): ResourceDef {
  return {
    group: '', version: 'v1', resource: 'componentstatuses', singular: 'componentstatus', kind: 'ComponentStatus', namespaced: false,
    shortNames: ['cs'], categories: [], subresources: [], verbs: ['get', 'list'],
    deprecation: 'v1 ComponentStatus is deprecated in v1.19+',
    source: () => control.list().map(toComponentStatus),
    printer: {
      columns: [
        nameColumn,
        { name: 'Status', type: 'string', description: 'Status of the component conditions' },
        { name: 'Message', type: 'string', description: 'Message of the component conditions' },
        { name: 'Error', type: 'string', description: 'Error of the component conditions' },
      ],
      cells(obj) {
        const c = (obj as ComponentStatus).conditions[0];
        return [obj.metadata.name ?? '', c?.status === 'True' ? 'Healthy' : 'Unhealthy', c?.message ?? '', c?.error ?? ''];
      },
    },
  };
}

/** Answers a /kedge/v1/components request, or undefined when the path is not one of them. */
export async function serveComponents(control: ComponentControl, method: string, path: string): Promise<ApiResponse | undefined> {
  if (path === COMPONENTS_PATH) {
    if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, path);
    return jsonResponse(200, { kind: 'ComponentList', items: control.list() });
  }
  const match = /^\/kedge\/v1\/components\/([^/]+)\/(start|stop)$/.exec(path);
  if (!match) return undefined;
  if (method !== 'POST') throw methodNotAllowed(method, path);
  const name = decodeURIComponent(match[1]!);
  return jsonResponse(200, match[2] === 'start' ? await control.start(name) : await control.stop(name));
}
