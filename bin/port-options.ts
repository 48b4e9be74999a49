import { createServer } from 'node:net';

/** A port a command listens on, and the option that sets it. */
export interface PortOption {
  port: number;
  host: string;
  option: string;
  /** What listens there, as "the API". */
  what: string;
}

/**
 * One line for a listen that failed on a port of `ports` (taken, or privileged), naming the
 * port and the option that changes it; undefined for any other error.
 */
export function portProblem(err: unknown, ports: readonly PortOption[]): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, port } = err as NodeJS.ErrnoException & { port?: number };
  const p = ports.find((o) => o.port === port);
  if (!p || (code !== 'EADDRINUSE' && code !== 'EACCES')) return undefined;
  const problem = code === 'EADDRINUSE' ? 'is in use by another process' : 'needs privileges this user lacks';
  return `port ${p.port} on ${p.host} (${p.what}) ${problem}: choose another with ${p.option} <port>, or 0 for a free one`;
}

/** Listens on each fixed port a moment, and throws, naming it and its option, at the first that is not free. */
export async function ensurePortsFree(ports: readonly PortOption[]): Promise<void> {
  for (const p of ports) {
    if (p.port === 0) continue;
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => reject(new Error(portProblem(err, [p]) ?? (err as Error).message)));
      server.listen(p.port, p.host, () => server.close(() => resolve()));
    });
  }
}
