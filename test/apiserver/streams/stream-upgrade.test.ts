import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiServer, type ApiServer } from '../../../cloud/apiserver/pipeline.js';
import type { ApiRequest } from '../../../cloud/apiserver/request.js';
import type { UpgradeAnswer } from '../../../cloud/apiserver/streams/stream-upgrade.js';
import type { PodStreams } from '../../../cloud/apiserver/subresources/pod-streams.js';
import { ensureSystemNamespaces } from '../../../cloud/apiserver/kinds/bootstrap.js';
import { MemoryStore } from '../../../cloud/store/memory-store.js';
import { FakeClock } from '../../../shared/clock.js';
import { KedgeError } from '../../../shared/errors.js';
import { silentLogger } from '../../../shared/log.js';
import type { StreamRequest } from '../../../shared/protocol/streams.js';
import type { Pod } from '../../../shared/types.js';
import { ScriptedPodStream } from '../../support/scripted-pod-stream.js';

const base = '/api/v1/namespaces/default/pods';

function wsRequest(path: string, query = '', protocol = 'v5.channel.k8s.io', token = 'admin-t'): ApiRequest {
  return { method: 'GET', path, query: new URLSearchParams(query), headers: { authorization: `Bearer ${token}`, upgrade: 'websocket', 'sec-websocket-protocol': protocol } };
}

function spdyRequest(path: string, query = ''): ApiRequest {
  return { method: 'POST', path, query: new URLSearchParams(query), headers: { authorization: 'Bearer admin-t', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v5.channel.k8s.io' } };
}

function refusal(answer: UpgradeAnswer): { code: number; reason: string; message: string } {
  if (!('refusal' in answer) || answer.refusal.type !== 'json') throw new Error('accepted');
  return answer.refusal.body as { code: number; reason: string; message: string };
}

describe('deciding on a stream upgrade', () => {
  let store: MemoryStore;
  let api: ApiServer;
  let clock: FakeClock;
  const opened: StreamRequest[] = [];
  const streams: PodStreams & { refuse?: Error } = {
    open: async (_pod, request) => {
      if (streams.refuse) throw streams.refuse;
      opened.push(request);
      return new ScriptedPodStream();
    },
  };

  beforeEach(async () => {
    store = new MemoryStore();
    clock = new FakeClock();
    opened.length = 0;
    streams.refuse = undefined;
    api = createApiServer({
      store, clock, logger: silentLogger, podStreams: streams,
      tokens: [{ token: 'admin-t', user: 'admin', role: 'admin' }, { token: 'viewer-t', user: 'viewer', role: 'viewer' }],
    });
    await ensureSystemNamespaces(api.loopback('admin-t'));
    const client = api.loopback('admin-t');
    const pod = (name: string, nodeName: string | undefined, containers: string[]): Pod => ({
      metadata: { namespace: 'default', name }, spec: { ...(nodeName && { nodeName }), containers: containers.map((c) => ({ name: c, image: 'i' })) },
    });
    await client.create({ resource: 'pods', namespace: 'default' }, pod('p', 'edge-1', ['c']));
    await client.create({ resource: 'pods', namespace: 'default' }, pod('two', 'edge-1', ['a', 'b']));
    await client.create({ resource: 'pods', namespace: 'default' }, pod('pending', undefined, ['c']));
  });

  afterEach(() => store.close());

  const decide = (req: ApiRequest): Promise<UpgradeAnswer> => api.upgrade.decide(req);

  it('opens the stream for a valid exec, and names the subprotocol', async () => {
    const answer = await decide(wsRequest(`${base}/p/exec`, 'command=ls&command=-l&stdout=true&stderr=true'));
    expect(answer).toMatchObject({ protocol: 'v5.channel.k8s.io' });
    expect(opened).toEqual([{ kind: 'exec', container: 'c', command: ['ls', '-l'], stdin: false, stdout: true, stderr: true, tty: false }]);
    expect(api.upgrade.handles(`${base}/p/exec`)).toBe(true);
    expect(api.upgrade.handles(`${base}/p/log`)).toBe(false);
  });

  it('refuses with kube\'s words before opening anything', async () => {
    const cases: [ApiRequest, number, string][] = [
      [wsRequest(`${base}/nope/exec`, 'command=ls&stdout=true'), 404, 'pods "nope" not found'],
      [wsRequest(`${base}/pending/exec`, 'command=ls&stdout=true'), 400, 'pod pending does not have a host assigned'],
      [wsRequest(`${base}/p/exec`, 'command=ls&stdout=true&container=x'), 400, 'container x is not valid for pod p'],
      [wsRequest(`${base}/two/exec`, 'command=ls&stdout=true'), 400, 'a container name must be specified for pod two, choose one of: [a b]'],
      [wsRequest(`${base}/p/exec`, 'stdout=true'), 400, 'you must specify at least 1 command'],
      [wsRequest(`${base}/p/attach`, ''), 400, 'you must specify at least one of stdin, stdout, stderr'],
      [wsRequest(`${base}/p/exec`, 'command=ls&stdout=true', 'v4.channel.k8s.io'), 400, 'unable to upgrade connection: pods/exec speaks only the WebSocket subprotocol v5.channel.k8s.io (offered: v4.channel.k8s.io)'],
      [wsRequest(`${base}/p/portforward`, '', 'v5.channel.k8s.io'), 400, 'unable to upgrade: no tunneling spdy protocols provided (kedge speaks SPDY/3.1+portforward.k8s.io; offered: v5.channel.k8s.io)'],
      [wsRequest(`${base}/p/exec`, 'command=ls&stdout=true', 'v5.channel.k8s.io', 'viewer-t'), 403, 'pods "p" is forbidden: User "viewer" cannot create resource "pods/exec" in API group "" in the namespace "default"'],
      [wsRequest(`${base}/p/portforward`, '', 'SPDY/3.1+portforward.k8s.io', 'viewer-t'), 403, 'pods "p" is forbidden: User "viewer" cannot create resource "pods/portforward" in API group "" in the namespace "default"'],
      [wsRequest(`${base}/p/exec`, 'command=ls&stdout=true', 'v5.channel.k8s.io', 'wrong'), 401, 'Unauthorized'],
    ];
    for (const [req, code, message] of cases) expect(refusal(await decide(req)), req.path + '?' + req.query.toString()).toMatchObject({ code, message });
    expect(opened).toEqual([]);
  });

  it('answers kubectl\'s SPDY retry with why its WebSocket was refused, else with what it speaks', async () => {
    const query = 'command=true&stdout=true';
    streams.refuse = new KedgeError('Unavailable', 'node "edge-1" is unreachable since 2026-12-02T20:00:00Z (5m ago): cannot exec into pod default/p');
    expect(refusal(await decide(wsRequest(`${base}/p/exec`, query)))).toMatchObject({ code: 503, message: streams.refuse.message });
    expect(refusal(await decide(spdyRequest(`${base}/p/exec`, query)))).toMatchObject({ code: 503, message: streams.refuse.message });
    const spoken = { code: 400, message: 'unable to upgrade connection: pods/exec speaks only WebSocket with subprotocol v5.channel.k8s.io, not SPDY/3.1 upgrades' };
    expect(refusal(await decide(spdyRequest(`${base}/p/exec`, query)))).toMatchObject(spoken); // once only
    await decide(wsRequest(`${base}/p/exec`, query));
    await clock.advance(11_000);
    expect(refusal(await decide(spdyRequest(`${base}/p/exec`, query)))).toMatchObject(spoken); // too old to be the retry
  });

  it('is Unavailable without a way to the edges', async () => {
    const bare = createApiServer({ store, clock, logger: silentLogger, tokens: [{ token: 'admin-t', user: 'admin', role: 'admin' }] });
    expect(refusal(await bare.upgrade.decide(wsRequest(`${base}/p/exec`, 'command=ls&stdout=true')))).toMatchObject({ code: 503 });
  });
});
