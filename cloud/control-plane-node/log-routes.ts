import type { Fields } from '../../shared/log.js';
import { CONTROLLER_MANAGER } from '../components/control-plane.js';
import type { LogRouter } from './component-logs.js';
import { staticPods } from './static-pods.js';

/** Loggers (the first name below the cloud's logger) that are not a component's own name, by the component they log for. */
const LOGGER_COMPONENTS: Record<string, string> = { ledger: 'hub', dashboard: 'apiserver', join: 'apiserver', informers: 'apiserver' };
const APISERVER_CONTAINER = 'kube-apiserver';

/**
 * Routes the cloud's log lines to its static containers, by the logger's first name below the
 * cloud's (shared/log.ts children: `scheduler`, `hub`, `broker`, `apiserver`, a controller's
 * `node-lifecycle` or `deployment-controller`…): a component's name goes to its container, a
 * controller's (or one starting with it and "-") to kube-controller-manager. The component
 * set's own lines ("component stopped") go to the container of the component they name.
 * Anything else is the process's: kube-apiserver's. Pure.
 */
export function cloudLogRouter(controllers: readonly string[]): LogRouter {
  const containerOf = new Map(staticPods(true).flatMap((p) => p.containers.map((c) => [c.component, c.name] as const)));
  const byComponent = (name: string | undefined): string | undefined => {
    if (name === undefined) return undefined;
    const component = LOGGER_COMPONENTS[name] ?? name;
    if (containerOf.has(component)) return containerOf.get(component);
    if (controllers.some((c) => component === c || component.startsWith(`${c}-`))) return containerOf.get(CONTROLLER_MANAGER);
    return undefined;
  };
  return (path: readonly string[], fields: Fields) => {
    const first = path[0];
    const named = first === 'components' && typeof fields?.component === 'string' ? fields.component : first;
    return byComponent(named) ?? APISERVER_CONTAINER;
  };
}
