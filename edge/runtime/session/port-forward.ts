import { connect, type Socket } from 'node:net';
import { KedgeError } from '../../../shared/errors.js';
import type { Sandbox } from '../runtime.js';

/** How long a connection to a pod's port may take before port-forward gives up on it. */
export const PORT_FORWARD_CONNECT_MS = 10_000;

/**
 * A TCP connection to `port` at the sandbox's address (its pod IP; the node's for hostNetwork),
 * as CRI's PortForward dials it. Rejects with the kubelet's wording when it cannot connect.
 */
export function dialSandbox(sandbox: Pick<Sandbox, 'id' | 'ip'>, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: sandbox.ip, port });
    const fail = (why: string): void => {
      socket.destroy();
      reject(new KedgeError('Unavailable', `error forwarding port ${port} to pod ${sandbox.id}, uid : dial tcp4 ${sandbox.ip}:${port}: ${why}`));
    };
    socket.setTimeout(PORT_FORWARD_CONNECT_MS, () => fail('i/o timeout'));
    socket.once('error', (err: NodeJS.ErrnoException) => fail(err.code === 'ECONNREFUSED' ? 'connect: connection refused' : `connect: ${err.message}`));
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.removeAllListeners('error');
      socket.removeAllListeners('timeout');
      resolve(socket);
    });
  });
}
