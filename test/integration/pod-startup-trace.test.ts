import { afterEach, describe, expect, it } from 'vitest';
import { POD_STARTUP_PATH } from '../../cloud/apiserver/pipeline.js';
import { STARTUP_POINTS, type StartupMarks } from '../../shared/trace/pod-startup-trace.js';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';

const pods = { resource: 'pods', namespace: 'default' };
const web: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'kedge.io/web:1' }] } };

/** A tracing cloud notes each point of a pod's way to Running, in order, and serves them to admins. */
describe('pod startup trace', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  const startups = async (c: Cluster, token: string): Promise<Response> =>
    fetch(`${c.cloud.apiUrl.replace(/^https:/, 'http:')}${POD_STARTUP_PATH}`, { headers: { authorization: `Bearer ${token}` } });

  it('marks a pod created, bound, sent, reported and running, in that order', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1, tracePodStartup: true });
    const c = cluster;
    await c.api.create(pods, web);
    const marksOf = async (): Promise<StartupMarks | undefined> => ((await (await startups(c, c.cloud.credentials.admin)).json()) as Record<string, StartupMarks>)['default/web'];
    await eventually(c.clock, async () => (await marksOf())?.running !== undefined, 'web seen Running', { wallTimeoutMs: 15_000 });
    const marks = (await marksOf())!;
    const times = STARTUP_POINTS.map((point) => marks[point]);
    expect(times.every((t) => typeof t === 'number')).toBe(true);
    expect([...times].sort((a, b) => a! - b!)).toEqual(times);
    expect((await c.api.get<Pod>({ ...pods, name: 'web' })).status?.phase).toBe('Running');
  });

  it('is not served by a cloud that traces nothing', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
    expect((await startups(cluster, cluster.cloud.credentials.admin)).status).toBe(404);
  });
});
