import { KedgeError } from '../../../shared/errors.js';
import type { StreamRequest } from '../../../shared/protocol/streams.js';
import type { Pod } from '../../../shared/types.js';

/** The subresources that open a stream to a pod, and the WebSocket subprotocols kubectl speaks for them. */
export type StreamSubresource = 'exec' | 'attach' | 'portforward';

export interface StreamPath {
  namespace: string;
  name: string;
  subresource: StreamSubresource;
}

const STREAM_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)\/?$/;

/** The pod and subresource of /api/v1/namespaces/<ns>/pods/<name>/exec|attach|portforward; undefined for any other path. */
export function streamPathOf(path: string): StreamPath | undefined {
  const m = STREAM_PATH.exec(path);
  if (!m) return undefined;
  try {
    return { namespace: decodeURIComponent(m[1]!), name: decodeURIComponent(m[2]!), subresource: m[3] as StreamSubresource };
  } catch {
    return undefined;
  }
}

const isTrue = (v: string | null): boolean => v === 'true' || v === '1';

/**
 * What an exec or attach asks for, from its query (kubectl's PodExecOptions/PodAttachOptions),
 * checked as kube-apiserver checks it: the container must be the pod's (named, or the only
 * one), an exec needs a command, and something must be streamed.
 */
export function channelRequestOf(query: URLSearchParams, pod: Pod, subresource: 'exec' | 'attach'): StreamRequest {
  const container = containerOf(query.get('container') ?? '', pod);
  const io = { stdin: isTrue(query.get('stdin')), stdout: isTrue(query.get('stdout')), stderr: isTrue(query.get('stderr')), tty: isTrue(query.get('tty')) };
  if (!io.stdin && !io.stdout && !io.stderr) throw new KedgeError('BadRequest', 'you must specify at least one of stdin, stdout, stderr');
  if (subresource === 'attach') return { kind: 'attach', container, ...io };
  const command = query.getAll('command');
  if (command.length === 0) throw new KedgeError('BadRequest', 'you must specify at least 1 command');
  return { kind: 'exec', container, command, ...io };
}

function containerOf(asked: string, pod: Pod): string {
  const names = (pod.spec.containers ?? []).map((c) => c.name);
  const initNames = (pod.spec.initContainers ?? []).map((c) => c.name);
  if (asked === '') {
    if (names.length === 1) return names[0]!;
    throw new KedgeError('BadRequest', `a container name must be specified for pod ${pod.metadata.name}, choose one of: [${names.join(' ')}]`);
  }
  if (!names.includes(asked) && !initNames.includes(asked)) throw new KedgeError('BadRequest', `container ${asked} is not valid for pod ${pod.metadata.name}`);
  return asked;
}
