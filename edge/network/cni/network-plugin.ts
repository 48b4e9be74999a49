import type { Observable } from 'rxjs';
import type { EdgeComponent } from '../edge-component.js';

/** Which sandbox a CNI verb is about: CNI's CNI_CONTAINERID is the sandbox id; the pod travels as K8S_POD_* args. */
export interface SandboxRef {
  containerId: string;
  podUid: string;
  namespace: string;
  name: string;
}

/** What ADD gives a sandbox: its address, and the range it came from. */
export interface PodAddress {
  ip: string;
  /** The podCIDR the address was handed out of (absent for an address from a podCIDR the node no longer has). */
  cidr?: string;
}

/** CRI's NetworkReady condition, as the plugin reports it. */
export interface NetworkStatus {
  ready: boolean;
  reason?: string;
  message?: string;
}

/** A sandbox the runtime still has, with the address it holds (CNI 1.1 GC's valid attachments). */
export interface ValidAttachment {
  containerId: string;
  ip: string;
}

/**
 * The edge's network plugin, with CNI's verbs: ADD gives a sandbox an address from the node's
 * podCIDR, DEL releases it, CHECK says the sandbox still holds it, GC releases what no sandbox
 * the runtime has holds. A user may stop it (`kedge-cni`): ADD is then refused, addresses
 * already handed out stay valid, and DEL still releases (as the CNI spec asks of DEL, so that
 * deleting a pod never waits on a stopped plugin).
 */
export interface NetworkPlugin extends EdgeComponent {
  /** The sandbox's address: the one it already holds (ADD is idempotent), else the next free one. Unavailable when not ready or none is left. */
  add(ref: SandboxRef): Promise<PodAddress>;
  /** Releases what the sandbox holds; nothing held is no error. */
  del(ref: Pick<SandboxRef, 'containerId'>): Promise<void>;
  /** NotFound when the sandbox holds no address. */
  check(ref: Pick<SandboxRef, 'containerId'>): Promise<PodAddress>;
  status(): NetworkStatus;
  /**
   * Releases every address no valid attachment holds (a sandbox an edge killed mid-step never
   * recorded, or one a node reboot took), and records a valid attachment's address the plugin
   * lost (the memory plugin after an edge restart). Returns the addresses released.
   */
  gc(valid: readonly ValidAttachment[]): Promise<string[]>;
  /** Fires when status() may have changed (started, stopped): edged retries waiting pods at once. */
  readonly statusChanges$: Observable<void>;
}

export const NETWORK_PLUGIN_NAME = 'kedge-cni';
export const NETWORK_PLUGIN_NOT_READY = 'NetworkPluginNotReady';

/** The runtime's network condition as the kubelet formats it: `container runtime network not ready: NetworkReady=false reason:… message:…`. */
export function networkNotReadyText(status: NetworkStatus): string {
  return `container runtime network not ready: NetworkReady=false reason:${status.reason ?? ''} message:${status.message ?? ''}`;
}
