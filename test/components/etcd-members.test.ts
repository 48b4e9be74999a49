import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ComponentSet } from '../../cloud/components/component-set.js';
import { judgeHealth } from '../../cloud/components/etcd-health.js';
import { addEtcdMembers, ETCD_PROBE_INTERVAL_MS } from '../../cloud/components/etcd-members.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { freePort } from '../../sim/free-port.js';
import { waitFor } from '../support/wait.js';

describe("an etcd member's health, as kube's componentstatuses give it", () => {
  const url = 'http://127.0.0.1:2379/health';
  it("healthy with etcd's own answer; a refused connection in Go's words; a 503 naming the missing leader when the metrics say so", () => {
    expect(judgeHealth(url, { status: 200, body: '{"health":"true"}\n' })).toEqual({ healthy: true, message: '{"health":"true"}' });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2379'), { code: 'ECONNREFUSED' });
    expect(judgeHealth(url, { error: refused })).toEqual({ healthy: false, message: 'Get "http://127.0.0.1:2379/health": dial tcp 127.0.0.1:2379: connect: connection refused' });
    const leaderless = { status: 200, body: '# HELP etcd_server_has_leader …\netcd_server_has_leader 0\n' };
    expect(judgeHealth(url, { status: 503, body: '{"health":"false"}' }, leaderless)).toEqual({ healthy: false, message: '{"health":"false"} (HTTP 503): no leader' });
    expect(judgeHealth(url, { status: 503, body: '{"health":"false"}' }, { status: 200, body: 'etcd_server_has_leader 1\n' })).toEqual({ healthy: false, message: '{"health":"false"} (HTTP 503)' });
    expect(judgeHealth(url, { status: 200, body: '{"health":"false"}' }).healthy).toBe(false);
  });
});

describe('etcd endpoints as components (addEtcdMembers)', () => {
  let server: Server | undefined;
  let close = (): void => {};
  afterEach(async () => {
    close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it('one component per endpoint, etcd-0 …, asked on each interval; they cannot be stopped or started from the cloud', async () => {
    let answer = { status: 200, body: '{"health":"true"}' };
    server = createServer((req, res) => {
      const reply = req.url === '/metrics' ? { status: 200, body: 'etcd_server_has_leader 0\n' } : answer;
      res.writeHead(reply.status).end(reply.body);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const live = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dead = `http://127.0.0.1:${await freePort()}`;
    const clock = new FakeClock();
    const set = new ComponentSet(clock, silentLogger);
    ({ close } = await addEtcdMembers(set, { endpoints: [live, dead] }, clock));

    const states = () => new Map(set.list().map((s) => [s.name, s]));
    expect(states().get('etcd-0')).toMatchObject({ running: true, healthy: true, stoppable: false, message: '{"health":"true"}' });
    expect(states().get('etcd-1')).toMatchObject({ running: true, healthy: false, message: `Get "${dead}/health": dial tcp ${new URL(dead).host}: connect: connection refused` });

    answer = { status: 503, body: '{"health":"false"}' };
    await clock.advance(ETCD_PROBE_INTERVAL_MS);
    await waitFor(() => states().get('etcd-0')!.healthy === false, 'etcd-0 unhealthy', 5_000);
    expect(states().get('etcd-0')!.message).toBe('{"health":"false"} (HTTP 503): no leader');

    await expect(set.stop('etcd-0')).rejects.toThrow(/^etcd-0 cannot be stopped: etcd runs outside the cloud \(http:\/\/127\.0\.0\.1:\d+\): stop it where it runs/);
  });
});
