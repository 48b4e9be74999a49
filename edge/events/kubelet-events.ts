import { formatGoDuration } from '../../shared/go-duration.js';

/**
 * The kubelet's Event reasons and messages (pkg/kubelet/events, kubelet 1.32), word for word:
 * `kubectl describe` shows them as a kubelet would.
 */
export const REASONS = {
  pulling: 'Pulling',
  pulled: 'Pulled',
  neverPull: 'ErrImageNeverPull',
  created: 'Created',
  started: 'Started',
  failed: 'Failed',
  killing: 'Killing',
  backOff: 'BackOff',
  unhealthy: 'Unhealthy',
  failedMount: 'FailedMount',
  failedSandbox: 'FailedCreatePodSandBox',
  starting: 'Starting',
  nodeReady: 'NodeReady',
  nodeNotReady: 'NodeNotReady',
  rebooted: 'Rebooted',
} as const;


export const messages = {
  pulling: (image: string) => `Pulling image "${image}"`,
  pulled: (image: string, pullMs: number, totalMs: number, size: number) =>
    `Successfully pulled image "${image}" in ${formatGoDuration(pullMs)} (${formatGoDuration(totalMs)} including waiting). Image size: ${size} bytes.`,
  present: (image: string) => `Container image "${image}" already present on machine`,
  neverPull: (image: string) => `Container image "${image}" is not present with pull policy of Never`,
  created: (container: string) => `Created container: ${container}`,
  started: (container: string) => `Started container ${container}`,
  failed: (error: string) => `Error: ${error}`,
  stopping: (container: string) => `Stopping container ${container}`,
  /** `unhealthy`: the prober's "Liveness probe failed: …" or "Startup probe failed: …". */
  probeKill: (container: string, unhealthy: string) => `Container ${container} failed ${unhealthy.startsWith('Startup') ? 'startup' : 'liveness'} probe, will be restarted`,
  definitionChanged: (container: string) => `Container ${container} definition changed, will be restarted`,
  backOff: (container: string, pod: string, namespace: string, uid: string) => `Back-off restarting failed container ${container} in pod ${pod}_${namespace}(${uid})`,
  failedSandbox: (error: string) => `Failed to create pod sandbox: ${error}`,
  starting: () => 'Starting kubelet.',
  nodeStatus: (node: string, ready: boolean) => `Node ${node} status is now: ${ready ? 'NodeReady' : 'NodeNotReady'}`,
  rebooted: (node: string, bootId: string) => `Node ${node} has been rebooted, boot id: ${bootId}`,
};
