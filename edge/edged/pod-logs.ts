import type { Clock } from '../../shared/clock.js';
import { MAX_LOG_BYTES } from '../../shared/protocol/codec.js';
import type { LogChunk, LogCursor, LogOptions, LogRequestMessage, LogResponseMessage, UpDraft } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';
import type { LocalCache } from '../metamanager/local-cache.js';
import type { ContainerInfo, LogLine, Runtime } from '../runtime/runtime.js';

type LogAnswer = LogResponseMessage['body'];
type LogRuntime = Pick<Runtime, 'listContainers' | 'logs'>;

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

const render = (line: LogLine, timestamps: boolean | undefined): string => (timestamps ? `${new Date(line.time).toISOString()} ${line.text}\n` : `${line.text}\n`);

/** The oldest time a line may have: sinceTime, or sinceSeconds before `now`. */
function sinceOf(options: LogOptions, now: number): number {
  if (options.sinceTime !== undefined) return options.sinceTime;
  return options.sinceSeconds === undefined ? -Infinity : now - options.sinceSeconds * 1000;
}

/** The lines as `kubectl logs` prints them: since the time asked, the tail, with timestamps if asked, cut from the front to what one message carries. Pure. */
export function formatLog(lines: readonly LogLine[], options: LogOptions, now = 0): string {
  const since = sinceOf(options, now);
  const recent = lines.filter((l) => l.time >= since);
  const tail = options.tailLines === undefined ? recent : recent.slice(Math.max(0, recent.length - options.tailLines));
  let text = tail.map((l) => render(l, options.timestamps)).join('');
  while (Buffer.byteLength(text) > MAX_LOG_BYTES) text = text.slice(text.indexOf('\n', text.length - MAX_LOG_BYTES) + 1);
  return text;
}

/** The cursor after `cursor` once `lines` (the next ones of its run) are behind it too. Pure. */
export function cursorAfter(cursor: LogCursor, lines: readonly LogLine[]): LogCursor {
  const last = lines.at(-1);
  if (!last) return cursor;
  let count = last.time === cursor.time ? cursor.count : 0;
  for (const l of lines) if (l.time === last.time) count++;
  return { containerId: cursor.containerId, time: last.time, count };
}

/** The lines of a run's log (oldest first) that lie after `cursor`. Pure. */
export function linesAfter(lines: readonly LogLine[], cursor: LogCursor): LogLine[] {
  let atCursorTime = 0;
  for (let i = 0; i < lines.length; i++) {
    const time = lines[i]!.time;
    if (time > cursor.time || (time === cursor.time && ++atCursorTime > cursor.count)) return lines.slice(i);
  }
  return [];
}

/**
 * [SYNC-16] What a follower gets next: the lines after `cursor`, oldest first, as many as one
 * message carries (at least one, cut if it alone is too long), and the cursor after them.
 * `exited` only once the run has exited and nothing of it is left behind. Pure.
 */
export function logAfter(lines: readonly LogLine[], cursor: LogCursor, timestamps: boolean | undefined, runExited: boolean): LogChunk {
  const next = linesAfter(lines, cursor);
  const parts: string[] = [];
  let bytes = 0;
  for (const line of next) {
    const part = render(line, timestamps);
    const size = Buffer.byteLength(part);
    if (bytes + size > MAX_LOG_BYTES) {
      if (parts.length === 0) parts.push(`${new TextDecoder().decode(Buffer.from(part).subarray(0, MAX_LOG_BYTES - 1), { stream: true })}\n`);
      break;
    }
    parts.push(part);
    bytes += size;
  }
  const sent = next.slice(0, parts.length);
  return { text: parts.join(''), cursor: cursorAfter(cursor, sent), exited: runExited && sent.length === next.length };
}

/** [SYNC-16] The edge's answer to a logRequest for the pod it holds under `uid` (undefined: not held); `now` by the edge's clock. */
async function answerLogRequest(pod: Pod | undefined, runtime: LogRuntime, options: LogOptions, now: number): Promise<LogAnswer> {
  if (!pod) return { error: 'the pod is not on this node', code: 'NotFound' };
  // The state is read before the log: a run seen exited has written all it will.
  const runs = (await runtime.listContainers()).filter((c) => c.podUid === pod.metadata.uid);
  const { cursor } = options;
  if (cursor) {
    const run = runs.find((c) => c.id === cursor.containerId);
    if (!run) return { error: `container ${cursor.containerId} of pod ${pod.metadata.name ?? ''} is gone`, code: 'NotFound' };
    return logAfter(await runtime.logs(run.id), cursor, options.timestamps, run.state === 'exited');
  }
  const run = pickContainer(pod, runs, options);
  if (!('id' in run)) return run;
  const lines = await runtime.logs(run.id);
  return { text: formatLog(lines, options, now), cursor: cursorAfter({ containerId: run.id, time: 0, count: 0 }, lines), exited: run.state === 'exited' };
}

export interface LogRequestDeps {
  cache: Pick<LocalCache, 'objects'>;
  runtime: LogRuntime;
  clock: Pick<Clock, 'now'>;
  /** Sends the answer up to the cloud (the edge hub's send). */
  send(draft: Extract<UpDraft, { type: 'logResponse' }>): Promise<unknown>;
}

/**
 * [SYNC-16] Answers each logRequest from the cloud with a logResponse: the log of the pod the
 * edge holds under the request's uid, or why there is none. An answer that cannot be sent is
 * dropped: the cloud times out.
 */
export function answerLogRequests(deps: LogRequestDeps): (request: LogRequestMessage) => Promise<void> {
  return async (request) => {
    const held = deps.cache.objects().find((o) => o.uid === request.ref.uid);
    const pod = held?.kind === 'Pod' ? held.object : undefined;
    const body = await answerLogRequest(pod, deps.runtime, request.body, deps.clock.now()).catch((err: Error) => ({ error: err.message, code: 'NotFound' as const }));
    await deps.send({ type: 'logResponse', parentId: request.id, body }).catch(() => undefined);
  };
}
