import type { ComponentState } from '../../shared/wire/dashboard.js';

export type { ComponentState };

/** A part of the cloud that can be stopped and started while the cloud runs (kube's control-plane components). */
export interface ComponentDef {
  /** As `kedge component` and `kubectl get componentstatuses` name it: "scheduler", "deployment", … */
  readonly name: string;
  /** The component this one runs inside (a controller's is "controller-manager"). */
  readonly parent?: string;
  /** Starts it; resolves once it works (caches listed). The handle stops it again. */
  start(): Promise<ComponentHandle>;
  /** Why it can never be stopped (the apiserver: the stop request itself goes through it); `stop` refuses, saying so. */
  readonly unstoppable?: string;
  /** How it fares while it runs, for one that can run yet be cut off (the hub without its broker). Default: healthy, "ok". */
  health?(): Health;
}

export interface ComponentHandle {
  close(): Promise<void>;
}

export interface Health {
  healthy: boolean;
  message: string;
  /** Since when it is so (epoch ms). */
  since: number;
}

/** Start, stop and inspect components: the seam the API (and so `kedge component`) talks to. */
export interface ComponentControl {
  list(): ComponentState[];
  start(name: string): Promise<ComponentState>;
  stop(name: string): Promise<ComponentState>;
}
