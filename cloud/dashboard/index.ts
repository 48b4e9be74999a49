import { join } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { distDir } from '../../shared/repo-paths.js';
import type { Timing } from '../../shared/timing.js';
import type { PageHandler } from '../apiserver/index.js';
import { dashboardApi, type DashboardApi } from './dashboard-api.js';
import { demoProxy } from './demo-proxy.js';
import { DashboardLogins } from './logins.js';
import { dashboardPages } from './pages.js';

export { LOGIN_TOKENS_PATH, INFO_PATH, DEMO_PATH, type DashboardApi } from './dashboard-api.js';
export { DashboardLogins } from './logins.js';

/** The built UI: dist/ui, also when this module runs from source (under vitest). */
export const builtUiDir = join(distDir, 'ui');

export interface DashboardOptions {
  /** The cloud's data dir, where a demo leaves its demo.json. */
  dataDir: string;
  timing: Timing;
  clock: Clock;
  logger: Logger;
  /** Defaults to builtUiDir. */
  uiDir?: string;
}

export interface Dashboard {
  /** For the apiserver's pipeline (createApiServer's `dashboard`). */
  readonly api: DashboardApi;
  /** For the HTTP server (startApiServer's `pages`). */
  readonly pages: PageHandler;
  readonly logins: DashboardLogins;
}

/** The dashboard the cloud serves on its API port: its pages, its logins and its API paths. */
export function createDashboard(options: DashboardOptions): Dashboard {
  const logins = new DashboardLogins(options.clock);
  return {
    logins,
    api: dashboardApi({ logins, timing: options.timing, demo: demoProxy({ dataDir: options.dataDir, clock: options.clock }) }),
    pages: dashboardPages({ logins, uiDir: options.uiDir ?? builtUiDir, logger: options.logger }),
  };
}
