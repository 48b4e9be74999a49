import { spawn } from 'node:child_process';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_FOLLOW_POLL_MS } from '../../cloud/apiserver/subresources/pod-log-follow.js';
import { FakeClock, wallDelay } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';
import { followPodLog } from '../support/follow-log.js';
import { hasKubectl, KUBECTL } from '../support/kubectl.js';
import { runUntil } from '../support/settle.js';

/**
 * A process that says "first", then prints each line written to its say-file, and exits on
 * "exit" (or once the cluster's directory is gone, so that no test leaves it running).
 */
const TALKER = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const say = process.argv[1];
console.log('first');
setInterval(() => {
  if (!fs.existsSync(path.dirname(say))) process.exit(0);
  let text;
  try { text = fs.readFileSync(say, 'utf8'); fs.unlinkSync(say); } catch { return; }
  for (const line of text.split('\n').filter(Boolean)) {
    if (line === 'exit') process.exit(0);
    console.log(line);
  }
}, 20);
`;

const talker = (name: string, sayPath: string): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { nodeName: 'edge-1', runtimeClassName: 'process', restartPolicy: 'Never', containers: [{ name: 'main', image: 'node', command: [process.execPath, '-e', TALKER, sayPath] }] },
});

/** `kubectl logs -f`: the response stays open and carries what the container writes next [SYNC-16]. */
describe('following a container log', () => {
  let c: Cluster<FakeClock>;
  beforeAll(async () => {
    c = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
  });
  afterAll(async () => {
    await c?.stop();
  });

  const sayPath = (pod: string) => join(c.dir, `say-${pod}`);
  const say = async (pod: string, line: string): Promise<void> => {
    await writeFile(`${sayPath(pod)}.tmp`, `${line}\n`);
    await rename(`${sayPath(pod)}.tmp`, sayPath(pod));
  };
  const run = async (name: string): Promise<void> => {
    await c.api.create({ resource: 'pods', namespace: 'default', name }, talker(name, sayPath(name)));
    await eventually(c.clock, async () => (await c.api.get<Pod>({ resource: 'pods', namespace: 'default', name })).status?.phase === 'Running', `${name} Running`, { wallTimeoutMs: 15_000 });
  };
  const follow = (name: string) => followPodLog(c.cloud, name);
  const logRequests = (): number => c.cloud.hub.stats().logRequests;

  it('writes lines as the container writes them, and ends when the container exits', async () => {
    await run('talker');
    const { got } = await follow('talker');
    expect([got.status, got.contentType]).toEqual([200, 'text/plain; charset=utf-8']);
    await eventually(c.clock, () => got.text === 'first\n', 'the first line');
    await say('talker', 'second');
    await eventually(c.clock, () => got.text === 'first\nsecond\n', 'a line written while following');
    expect(got.ended).toBe(false);
    await say('talker', 'exit');
    await eventually(c.clock, () => got.ended, 'the stream to end with the container');
    expect(got.text).toBe('first\nsecond\n');
  });

  it('stops asking the edge once the client hangs up', async () => {
    await run('quitter');
    const { got, abort } = await follow('quitter');
    await eventually(c.clock, () => got.text === 'first\n', 'the first line');
    const before = logRequests();
    await eventually(c.clock, () => logRequests() >= before + 2, 'polls while following');
    abort.abort();
    await wallDelay(100); // the hang-up travels over a real socket; the fake clock stands still meanwhile
    const after = logRequests();
    for (let i = 0; i < 5; i++) {
      await c.clock.advance(LOG_FOLLOW_POLL_MS);
      await wallDelay(20); // room for a request and its answer over the real broker
    }
    expect(logRequests()).toBe(after);
  });

  it.skipIf(!hasKubectl)('kubectl logs -f prints a line written after it started', async () => {
    await run('chatter');
    const home = await mkdtemp(join(tmpdir(), 'kedge-logs-f-'));
    const kubectl = spawn(KUBECTL, ['--cache-dir', join(home, 'cache'), 'logs', '-f', 'chatter'], { env: { ...process.env, HOME: home, KUBECONFIG: c.cloud.kubeconfigPath } });
    const exited = new Promise((resolve) => kubectl.once('exit', resolve));
    let out = '';
    kubectl.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await eventually(c.clock, () => out === 'first\n', 'kubectl to print the first line');
      await say('chatter', 'after kubectl started');
      await eventually(c.clock, () => out === 'first\nafter kubectl started\n', 'kubectl to print the new line');
    } finally {
      kubectl.kill();
      await exited;
      await rm(home, { recursive: true, force: true });
    }
  });
});

/** A followed log ends when its node goes away: the stream is over a real socket, so real time. */
describe('following the log of a pod whose node goes away', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterAll(async () => {
    await cluster?.stop();
  });

  it('ends the response once the hub notices the node is gone', async () => {
    const c = (cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1, timing: { keepaliveMs: 1_000 } }));
    const ref = { resource: 'pods', namespace: 'default', name: 'web' };
    await c.api.create(ref, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: 'kedge.io/web:1' }] } });
    await runUntil(c.clock, async () => (await c.api.get<Pod>(ref)).status?.phase === 'Running', 'web Running');
    const followed = await followPodLog(c.cloud, 'web');
    await eventually(c.clock, () => followed.got.text.includes('app: started'), 'the followed log');
    c.cut('edge-1');
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes('edge-1'), 'the hub to notice', { budgetMs: 2 * c.timing.keepaliveMs });
    await eventually(c.clock, () => followed.got.ended, 'the followed log to end with its node away');
  });
});
