import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { afterEach, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { startControlApi, type ControlApi } from '../../sim/control-api.js';
import { refuseMixedStores, startDemoEtcd, type DemoEtcd } from '../../sim/demo-etcd.js';
import { startEtcdCluster } from '../../sim/etcd/etcd-cluster.js';
import { isRunning } from '../support/processes.js';

describe("a demo's etcd cluster (sim/demo-etcd.ts)", () => {
  let dir: string | undefined;
  let etcd: DemoEtcd | undefined;
  let control: ControlApi | undefined;
  afterEach(async () => {
    await control?.close();
    await etcd?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    [dir, etcd, control] = [undefined, undefined, undefined];
  });

  it('refuses a data dir that holds the other kind of cluster, naming the way out', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-demo-etcd-'));
    await refuseMixedStores(dir, 3);
    await refuseMixedStores(dir, undefined);
    await mkdir(join(dir, 'store'));
    await writeFile(join(dir, 'store', 'wal'), '');
    await expect(refuseMixedStores(dir, 3)).rejects.toThrow(`${dir} holds a demo on the embedded store (${join(dir, 'store')}): a demo with --etcd 3 there would start another cluster beside it. Run it without --etcd`);
    await refuseMixedStores(dir, undefined);
  });

  it('keeps its cluster in <data-dir>/etcd: started again on the same ports with its data; another size is refused', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-demo-etcd-'));
    etcd = await startDemoEtcd({ size: 1, dataDir: dir, clock: realClock });
    const endpoints = etcd.members.map((m) => m.clientUrl);
    expect(etcd.cloudArgs).toEqual(['--store', 'etcd', '--etcd-endpoints', endpoints.join(',')]);
    const client = new Etcd3({ hosts: endpoints });
    await client.put('/registry/kept').value('yes');
    client.close();
    await etcd.close();
    etcd = undefined;
    expect(existsSync(join(dir, 'etcd', 'etcd-0', 'member'))).toBe(true);
    // etcd's own log goes to a file beside its data, not to the demo's terminal.
    expect(await readFile(join(dir, 'etcd', 'etcd.log'), 'utf8')).toMatch(/^\[etcd-0\] \{.*serving client traffic/m);
    await expect(startEtcdCluster({ size: 3, clock: realClock, dir: join(dir, 'etcd') })).rejects.toThrow(`${join(dir, 'etcd')} holds a 1-member etcd cluster, not 3`);
    await refuseMixedStores(dir, 1);
    await expect(refuseMixedStores(dir, undefined)).rejects.toThrow('Run it with --etcd 1, or give another --data-dir');

    etcd = await startDemoEtcd({ size: 1, dataDir: dir, clock: realClock });
    expect(etcd.members.map((m) => m.clientUrl)).toEqual(endpoints);
    const again = new Etcd3({ hosts: endpoints });
    expect(await again.get('/registry/kept').string()).toBe('yes');
    again.close();
  }, 60_000);

  it('the control API stops, kills and starts a member, saying what happened; refuses what cannot be done', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-demo-etcd-'));
    etcd = await startDemoEtcd({ size: 1, dataDir: dir, clock: realClock });
    control = await startControlApi({ links: new Map(), etcd: etcd.control, logger: silentLogger });
    const post = async (path: string) => {
      const res = await fetch(`${control!.url}${path}`, { method: 'POST' });
      return { status: res.status, body: (await res.json()) as { message: string; state?: string; pid?: number } };
    };
    const list = (await (await fetch(`${control.url}/etcd`)).json()) as { items: { name: string; state: string; pid: number }[] };
    expect(list.items).toEqual([{ name: 'etcd-0', clientUrl: etcd.members[0]!.clientUrl, state: 'running', pid: expect.any(Number) }]);

    expect(await post('/etcd/etcd-0/kill')).toMatchObject({ status: 200, body: { state: 'stopped', message: 'etcd-0 killed (kill -9); its data stays' } });
    expect(await isRunning(list.items[0]!.pid)).toBe(false);
    expect(await post('/etcd/etcd-0/stop')).toEqual({ status: 409, body: { error: 'Conflict', message: 'etcd-0 is not running' } });
    expect(await post('/etcd/etcd-0/start')).toMatchObject({ status: 200, body: { state: 'running', message: 'etcd-0 started; it serves clients' } });
    expect(await post('/etcd/etcd-0/start')).toMatchObject({ status: 409, body: { message: 'etcd-0 is running already' } });
    expect(await post('/etcd/etcd-0/stop')).toMatchObject({ status: 200, body: { state: 'stopped', message: 'etcd-0 stopped (SIGTERM); its data stays' } });
    expect(await post('/etcd/etcd-9/stop')).toMatchObject({ status: 404, body: { message: 'no etcd member "etcd-9" in this demo (its members: etcd-0)' } });
    expect((await post('/etcd/etcd-0/pause')).status).toBe(404);
  }, 60_000);

  it('a demo on the embedded store answers /etcd with 404, saying how to run one on etcd', async () => {
    control = await startControlApi({ links: new Map(), logger: silentLogger });
    const res = await fetch(`${control.url}/etcd`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toBe('this demo runs on the embedded store, not etcd: start it with kedge demo --etcd N');
  });
});
