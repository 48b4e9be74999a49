import type { Timing } from '../../shared/timing.js';
import type { ClusterInfo } from '../../shared/wire/dashboard.js';
import { DEFAULT_TOLERATION_SECONDS } from '../client/pod-defaults.js';
import { adminOnly, adminTokenOnly, jsonResponse, methodNotAllowed, type ApiRequest, type ApiResponse, type SessionLookup, type UserInfo } from '../apiserver/index.js';
import type { DemoProxy } from './demo-proxy.js';
import type { DashboardLogins } from './logins.js';

/**
 * The dashboard's API paths, served after authentication and authorization like the rest:
 *   POST /kedge/v1/dashboard/login-tokens → a one-time login token (an admin's token only, not a session)
 *   GET  /kedge/v1/info                  → the time scale and the node lifecycle's timing
 *   ANY  /kedge/v1/demo/<path>           → the running demo's control API (admins only)
 */
export const LOGIN_TOKENS_PATH = '/kedge/v1/dashboard/login-tokens';
export const INFO_PATH = '/kedge/v1/info';
export const DEMO_PATH = '/kedge/v1/demo';

/** What the apiserver's pipeline asks of the dashboard. */
export interface DashboardApi {
  /** The user a dashboard session stands for (authentication: the session is sent as a bearer token). */
  sessionUser: SessionLookup;
  /** Answers one of the paths above, or undefined for any other path. */
  serve(user: UserInfo, req: ApiRequest, path: string): Promise<ApiResponse | undefined>;
}

export interface DashboardApiDeps {
  logins: DashboardLogins;
  timing: Timing;
  demo: DemoProxy;
}

export function dashboardApi(deps: DashboardApiDeps): DashboardApi {
  return {
    sessionUser: (sessionId) => deps.logins.sessionUser(sessionId),
    async serve(user, req, path) {
      const method = req.method.toUpperCase();
      if (path === LOGIN_TOKENS_PATH) {
        allow(method, path, 'POST');
        adminTokenOnly(user, path);
        const login = deps.logins.mint(user);
        return jsonResponse(201, { kind: 'DashboardLoginToken', apiVersion: 'kedge/v1', ...login, path: `/?token=${login.token}` });
      }
      if (path === INFO_PATH) {
        allow(method, path, 'GET', 'HEAD');
        return jsonResponse(200, info(deps.timing));
      }
      if (path === DEMO_PATH || path.startsWith(`${DEMO_PATH}/`)) {
        adminOnly(user, path);
        return deps.demo(req, path.slice(DEMO_PATH.length) || '/');
      }
      return undefined;
    },
  };
}

function info(timing: Timing): ClusterInfo {
  return {
    kind: 'ClusterInfo',
    apiVersion: 'kedge/v1',
    timeScale: timing.timeScale,
    nodeMonitorGraceSeconds: timing.nodeMonitorGraceMs / 1000,
    defaultTolerationSeconds: DEFAULT_TOLERATION_SECONDS / timing.timeScale,
  };
}

function allow(method: string, path: string, ...methods: string[]): void {
  if (!methods.includes(method)) throw methodNotAllowed(method, path, methods[0]);
}
