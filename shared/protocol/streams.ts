/**
 * [SYNC-20] Streams over the sync link: `kubectl exec`, `attach`, `cp` and `port-forward`
 * reach a pod on an edge as a stream the cloud opens to that edge. These are the words both
 * ends share; the frames that carry them are in stream-frame.ts.
 */

/** What a stream asks the edge to do with one pod. */
export type StreamRequest =
  | { kind: 'exec'; container: string; command: string[]; stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }
  | { kind: 'attach'; container: string; stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }
  | { kind: 'portforward'; port: number };

/**
 * Channels of a stream, numbered as Kubernetes' remotecommand numbers them. Exec and attach:
 * stdin goes to the edge, stdout and stderr come from it. Port-forward: STDIN carries the
 * bytes to the pod's port, STDOUT the bytes from it.
 */
export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;

/** Why a stream ended without an exit code, as a Status reason. */
export type StreamErrorReason = 'NotFound' | 'BadRequest' | 'Unavailable' | 'Timeout' | 'TooManyRequests' | 'InternalError';

/** How a stream ended: the command's exit code (exec, attach), or an error (anything, including a port that refused). */
export type StreamEnd = { exitCode: number } | { error: string; reason: StreamErrorReason };
