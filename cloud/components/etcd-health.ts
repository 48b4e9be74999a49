import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** What one GET of an etcd member's /health (or /metrics) gave: its status and body, or the connection's error. */
export type HealthAnswer = { status: number; body: string } | { error: NodeJS.ErrnoException };

/** The client TLS material for an https:// member (etcd's --client-cert-auth). */
export interface HealthTls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** kube-apiserver's --etcd-healthcheck-timeout (2 s). */
export const HEALTH_TIMEOUT_MS = 2_000;

/** One GET of `url`; never rejects. */
export function getOnce(url: string, tls: HealthTls, timeoutMs = HEALTH_TIMEOUT_MS): Promise<HealthAnswer> {
  return new Promise((resolve) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = request(url, { method: 'GET', timeout: timeoutMs, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (error) => resolve({ error }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error(`timed out after ${timeoutMs / 1000}s`), { code: 'ETIMEDOUT' })));
    req.on('error', (error) => resolve({ error }));
    req.end();
  });
}

/** A connection error as Go's net/http words it (kube's componentstatuses show Go's): "dial tcp 127.0.0.1:2379: connect: connection refused". */
function dialError(url: URL, err: NodeJS.ErrnoException): string {
  const where = `dial tcp ${url.host}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `${where}: connect: connection refused`;
    case 'ECONNRESET':
      return 'connection reset by peer';
    case 'EHOSTUNREACH':
      return `${where}: connect: no route to host`;
    case 'ETIMEDOUT':
      return `context deadline exceeded (${err.message})`;
    default:
      return err.message;
  }
}

/** etcd's /metrics says whether the member sees a leader ("etcd_server_has_leader 1"); undefined when it does not say. */
export function hasLeader(metrics: HealthAnswer | undefined): boolean | undefined {
  if (!metrics || 'error' in metrics) return undefined;
  const value = /^etcd_server_has_leader (\d)/m.exec(metrics.body)?.[1];
  return value === undefined ? undefined : value === '1';
}

/**
 * A member's health as kube's componentstatuses give etcd's: healthy with etcd's own answer
 * (`{"health":"true"}`), else the failure: the connection's error, or etcd's answer with its
 * HTTP status and, when its metrics say so, that it has no leader. Pure.
 */
export function judgeHealth(healthUrl: string, health: HealthAnswer, metrics?: HealthAnswer): { healthy: boolean; message: string } {
  if ('error' in health) return { healthy: false, message: `Get "${healthUrl}": ${dialError(new URL(healthUrl), health.error)}` };
  const body = health.body.trim();
  let said: string | undefined;
  try {
    said = (JSON.parse(body) as { health?: string }).health;
  } catch {
    said = undefined;
  }
  if (health.status === 200 && said === 'true') return { healthy: true, message: body };
  const leaderless = hasLeader(metrics) === false ? ': no leader' : '';
  return { healthy: false, message: `${body || '(no body)'} (HTTP ${health.status})${leaderless}` };
}
