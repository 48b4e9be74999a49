import { MAX_LOG_BYTES } from '../../shared/protocol/codec.js';
import type { LogOptions, LogResponseMessage } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';
import type { ContainerInfo, LogLine, Runtime } from '../runtime/runtime.js';

type LogAnswer = LogResponseMessage['body'];

const badRequest = (error: string): LogAnswer => ({ error, code: 'BadRequest' });

/** Which container of the pod, and which run of it, a log request means; or why none (kubelet's wording). Pure. */
export function pickContainer(pod: Pod, runs: readonly ContainerInfo[], options: LogOptions): ContainerInfo | LogAnswer {
  const podName = pod.metadata.name ?? '';
  const names = (pod.spec.containers ?? []).map((c) => c.name);
  const name = options.container ?? (names.length === 1 ? names[0] : undefined);
  if (name === undefined) return badRequest(`a container name must be specified for pod ${podName}, choose one of: [${names.join(' ')}]`);
  if (!names.includes(name)) return badRequest(`container ${name} is not valid for pod ${podName}`);
  const mine = runs.filter((c) => c.name === name).sort((a, b) => b.attempt - a.attempt);
  const run = options.previous ? mine[1] : mine[0];
  if (run) return run;
  return badRequest(options.previous ? `previous terminated container "${name}" in pod "${podName}" not found` : `container "${name}" in pod "${podName}" is waiting to start: ContainerCreating`);
}

/** The lines as `kubectl logs` prints them: the tail, with timestamps if asked, cut to what one message carries. Pure. */
export function formatLog(lines: readonly LogLine[], options: LogOptions): string {
  const tail = options.tailLines === undefined ? lines : lines.slice(Math.max(0, lines.length - options.tailLines));
  let text = tail.map((l) => (options.timestamps ? `${new Date(l.time).toISOString()} ${l.text}\n` : `${l.text}\n`)).join('');
  while (Buffer.byteLength(text) > MAX_LOG_BYTES) text = text.slice(text.indexOf('\n', text.length - MAX_LOG_BYTES) + 1);
  return text;
}

/** [SYNC-16] The edge's answer to a logRequest for the pod it holds under `uid` (undefined: not held). */
export async function answerLogRequest(pod: Pod | undefined, runtime: Runtime, options: LogOptions): Promise<LogAnswer> {
  if (!pod) return { error: 'the pod is not on this node', code: 'NotFound' };
  const runs = (await runtime.listContainers()).filter((c) => c.podUid === pod.metadata.uid);
  const run = pickContainer(pod, runs, options);
  if (!('id' in run)) return run;
  return { text: formatLog(await runtime.logs(run.id), options) };
}
