import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { Clock } from '../../shared/clock.js';
import type { ContainerPort, ExecAction, HTTPGetAction, Probe, TCPSocketAction } from '../../shared/types.js';
import type { Runtime } from '../runtime/runtime.js';

/** A probe's outcome; an error (a port that cannot be resolved, a container the runtime cannot exec in) is not counted, as in the kubelet. */
export interface ProbeOutcome {
  result: 'success' | 'failure' | 'error';
  message: string;
}

/** The container a probe is aimed at. */
export interface ProbeTarget {
  containerId: string;
  /** Where httpGet and tcpSocket go when the probe names no host. */
  podIP: string;
  /** The container's ports, for probes that name one. */
  ports: ContainerPort[];
}

export interface ProbeContext {
  runtime: Pick<Runtime, 'exec'>;
  clock: Clock;
  timeoutMs: number;
  /** Aborts an HTTP or TCP probe under way (the prober stops). */
  signal?: AbortSignal;
}

/** As the kubelet announces itself. */
const USER_AGENT = 'kube-probe/1.32';
const MAX_OUTPUT = 1024;

const success = (message = ''): ProbeOutcome => ({ result: 'success', message });
const failure = (message: string): ProbeOutcome => ({ result: 'failure', message });

/** A port number, or the number of the container port with that name (a numeric string counts as a number). */
export function resolvePort(port: number | string, ports: ContainerPort[]): number {
  const named = typeof port === 'string' ? ports.find((p) => p.name === port)?.containerPort : port;
  const number = named ?? (typeof port === 'string' && /^\d+$/.test(port) ? Number(port) : undefined);
  if (number === undefined) throw new Error(`no container port named ${JSON.stringify(port)}`);
  if (!Number.isInteger(number) || number < 1 || number > 65535) throw new Error(`invalid port number: ${number}`);
  return number;
}

/** Runs `work` with a signal that aborts after `timeoutMs` on the clock (or when `outer` aborts); 'timeout' if the clock won. */
async function withTimeout<T>(ctx: ProbeContext, work: (signal: AbortSignal) => Promise<T>): Promise<T | 'timeout'> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  ctx.signal?.addEventListener('abort', onAbort, { once: true });
  let cancel = (): void => {};
  const timedOut = new Promise<'timeout'>((resolve) => {
    cancel = ctx.clock.setTimer(ctx.timeoutMs, () => {
      resolve('timeout'); // first, so that it wins over the aborted work
      controller.abort();
    });
  });
  try {
    return await Promise.race([work(controller.signal), timedOut]);
  } finally {
    cancel();
    ctx.signal?.removeEventListener('abort', onAbort);
  }
}

async function execProbe(action: ExecAction, target: ProbeTarget, ctx: ProbeContext): Promise<ProbeOutcome> {
  const result = await withTimeout(ctx, () => ctx.runtime.exec(target.containerId, action.command, ctx.timeoutMs));
  if (result === 'timeout' || result.timedOut) return failure(`command timed out after ${ctx.timeoutMs / 1000}s`);
  const output = result.output.trim().slice(0, MAX_OUTPUT);
  return result.exitCode === 0 ? success(output) : failure(`command exited with code ${result.exitCode}${output ? `: ${output}` : ''}`);
}

function httpHeaders(action: HTTPGetAction): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*' };
  for (const h of action.httpHeaders ?? []) headers[h.name.toLowerCase()] = h.value;
  return headers;
}

async function httpProbe(action: HTTPGetAction, target: ProbeTarget, ctx: ProbeContext): Promise<ProbeOutcome> {
  const port = resolvePort(action.port, target.ports);
  const host = action.host || target.podIP;
  const scheme = (action.scheme ?? 'HTTP').toUpperCase();
  const path = action.path ? (action.path.startsWith('/') ? action.path : `/${action.path}`) : '/';
  const url = `${scheme.toLowerCase()}://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
  const request = scheme === 'HTTPS' ? httpsRequest : httpRequest;
  const outcome = await withTimeout(ctx, (signal) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      // As the kubelet: no certificate check, redirects are not followed (a 3xx counts as success).
      const req = request({ host, port, path, method: 'GET', headers: httpHeaders(action), signal, agent: false, rejectUnauthorized: false }, resolve);
      req.on('error', reject);
      req.end();
    }).then((res) => {
      res.destroy(); // the status is all a probe needs; a body that never ends must not hold the socket
      return res.statusCode ?? 0;
    }),
  ).catch((err: Error) => err);
  if (outcome === 'timeout') return failure(`Get "${url}": no answer within ${ctx.timeoutMs / 1000}s`);
  if (outcome instanceof Error) return failure(`Get "${url}": ${outcome.message}`);
  return outcome >= 200 && outcome < 400 ? success(`HTTP ${outcome}`) : failure(`HTTP probe failed with statuscode: ${outcome}`);
}

async function tcpProbe(action: TCPSocketAction, target: ProbeTarget, ctx: ProbeContext): Promise<ProbeOutcome> {
  const port = resolvePort(action.port, target.ports);
  const host = action.host || target.podIP;
  const outcome = await withTimeout(ctx, (signal) =>
    new Promise<string | undefined>((resolve) => {
      const socket = connect({ host, port });
      const done = (error?: string): void => {
        signal.removeEventListener('abort', onAbort);
        socket.destroy();
        resolve(error);
      };
      const onAbort = (): void => done('aborted');
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('connect', () => done());
      socket.once('error', (err) => done(err.message));
    }),
  );
  if (outcome === 'timeout') return failure(`dial tcp ${host}:${port}: no connection within ${ctx.timeoutMs / 1000}s`);
  return outcome === undefined ? success() : failure(`dial tcp ${host}:${port}: ${outcome}`);
}

/** Runs the probe's action once against the container. */
export async function runProbeAction(probe: Probe, target: ProbeTarget, ctx: ProbeContext): Promise<ProbeOutcome> {
  try {
    if (probe.exec) return await execProbe(probe.exec, target, ctx);
    if (probe.httpGet) return await httpProbe(probe.httpGet, target, ctx);
    if (probe.tcpSocket) return await tcpProbe(probe.tcpSocket, target, ctx);
    return { result: 'error', message: 'the probe has no exec, httpGet or tcpSocket action' };
  } catch (err) {
    return { result: 'error', message: (err as Error).message };
  }
}
