/**
 * A part of the edge a user may stop and start while the edge runs (`kedge component stop
 * kube-proxy --node edge-1`): the kube-proxy agent, the network plugin. Stopping one stops only
 * it: what it already set up (forwarding rules, pod addresses) stays in place.
 */
export interface EdgeComponent {
  /** As `kedge component` and the kube-system pod name it: "kube-proxy", "kedge-cni". */
  readonly name: string;
  running(): boolean;
  /** Since when it runs or is stopped (ms since the epoch). */
  since(): number;
  start(): Promise<void>;
  stop(): Promise<void>;
}
