import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../edge/runtime/runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { STDERR, STDIN, STDOUT, type StreamRequest } from '../../shared/protocol/streams.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';
import { runUntil } from '../support/settle.js';
import { waitFor } from '../support/wait.js';
import { shellSession } from '../streams/stream-test-runtime.js';

const ref = { resource: 'pods', namespace: 'default', name: 'web' };
const web: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: 'kedge.io/web:1' }] } };
const shell = (script: string): StreamRequest => ({ kind: 'exec', container: 'app', command: ['sh', '-c', script], stdin: true, stdout: true, stderr: true, tty: false });

/** [SYNC-20] A stream from the hub over the in-memory broker to an edge's runtime, and back. */
describe('pod streams through a cluster', () => {
  let cluster: Cluster<FakeClock> | undefined;
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    await cluster?.stop();
    cluster = undefined;
  });

  it('runs a command on the edge: stdin in, stdout and stderr out, its exit code; a cut ends it on both sides', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1, timing: { keepaliveMs: 1_000 } });
    const c = cluster;
    await c.api.create(ref, web);
    await runUntil(c.clock, async () => (await c.api.get<Pod>(ref)).status?.phase === 'Running', 'web Running');
    // The test runtime's exec: a real shell (the runtimes' own come with their streams).
    const runtime = c.edge('edge-1').runtime as Runtime;
    runtime.execStream = async (_id, command, options) => shellSession(command[2]!, options, children);
    const pod = await c.api.get<Pod>(ref);

    const stream = await c.cloud.hub.streams.open(pod, shell('cat; echo oops >&2; exit 7'));
    await stream.write(STDIN, Buffer.from('ping\n'));
    stream.closeInput(STDIN);
    const out = { [STDOUT]: '', [STDERR]: '' } as Record<number, string>;
    for (let chunk = await stream.read(); chunk; chunk = await stream.read()) out[chunk.channel] += chunk.data.toString();
    expect(out).toEqual({ [STDOUT]: 'ping\n', [STDERR]: 'oops\n' });
    expect(await stream.ended).toEqual({ exitCode: 7 });
    expect([c.cloud.hub.stats().malformed, c.edge('edge-1').malformed()]).toEqual([0, 0]);

    const sleeping = await c.cloud.hub.streams.open(pod, shell('sleep 30'));
    c.cut('edge-1');
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes('edge-1'), 'the hub to notice', { budgetMs: 3 * c.timing.keepaliveMs });
    expect(await sleeping.read()).toBeUndefined();
    expect(await sleeping.ended).toEqual({ error: 'node "edge-1" went away (its link to the broker was lost)', reason: 'Unavailable' });
    await runUntil(c.clock, () => !c.edge('edge-1').hub.connectivity.connected, 'the edge to notice', { budgetMs: 3 * c.timing.keepaliveMs });
    await waitFor(() => children.at(-1)!.signalCode === 'SIGKILL', 'the edge to kill the process');
    await expect(c.cloud.hub.streams.open(pod, shell('true'))).rejects.toMatchObject({ code: 'Unavailable', message: expect.stringMatching(/^node "edge-1" is unreachable since \d{4}-.*Z \(.+ ago\): cannot exec into pod default\/web$/) });
  });

  it('carries a megabyte through `cat` and back over the embedded broker, window after window', async () => {
    cluster = await Cluster.start({ transport: 'mqtt', clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    await c.api.create(ref, web);
    await eventually(c.clock, async () => (await c.api.get<Pod>(ref)).status?.phase === 'Running', 'web Running');
    const runtime = c.edge('edge-1').runtime as Runtime;
    runtime.execStream = async (_id, command, options) => shellSession(command[2]!, options, children);

    const stream = await c.cloud.hub.streams.open(await c.api.get<Pod>(ref), shell('cat'));
    const sent = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < sent.length; i++) sent[i] = (i * 7) % 251;
    const writing = stream.write(STDIN, sent).then(() => stream.closeInput(STDIN));
    const got: Buffer[] = [];
    for (let chunk = await stream.read(); chunk; chunk = await stream.read()) got.push(chunk.data);
    await writing;
    expect(Buffer.concat(got).equals(sent)).toBe(true);
    expect(await stream.ended).toEqual({ exitCode: 0 });
    expect(c.cloud.hub.stats().malformed).toBe(0);
  });
});
