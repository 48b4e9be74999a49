import type { ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import type { Duplex } from 'node:stream';
import { BehaviorSubject, Subject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalCache } from '../../edge/metamanager/local-cache.js';
import type { ContainerInfo, ContainerSession, Runtime } from '../../edge/runtime/runtime.js';
import { StreamServer } from '../../edge/streams/stream-server.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { decodeStreamFrame, encodeStreamFrame, STREAM_WINDOW_BYTES, type FrameDraft, type StreamFrame } from '../../shared/protocol/stream-frame.js';
import { FrameOrder } from '../../shared/protocol/stream-flow.js';
import { STDERR, STDIN, STDOUT, type StreamRequest } from '../../shared/protocol/streams.js';
import type { Connectivity } from '../../shared/transport.js';
import type { Pod } from '../../shared/types.js';
import { settle } from '../support/settle.js';
import { waitFor } from '../support/wait.js';
import { passThroughSession, shellSession } from './stream-test-runtime.js';

const pod: Pod = { metadata: { namespace: 'default', name: 'x', uid: 'u1' }, spec: { nodeName: 'edge-1', containers: [{ name: 'c1', image: 'i' }] } };
const run = (state: ContainerInfo['state'], attempt: number): ContainerInfo => ({ id: `c1-${attempt}`, sandboxId: 's1', podUid: 'u1', name: 'c1', attempt, image: 'i', state, createdAt: 0 });
const exec = (command: string[], tty = false): StreamRequest => ({ kind: 'exec', container: 'c1', command, stdin: true, stdout: true, stderr: !tty, tty });

type Data = Extract<StreamFrame, { type: 'data' }>;

/** A stream server with a fake link: the test is the cloud. */
function harness(
  start: (id: string, command: string[]) => ContainerSession | Promise<ContainerSession>,
  runs = [run('exited', 0), run('running', 1)],
  withExec = true,
  portForward?: (sandboxId: string, port: number) => Promise<Duplex>,
) {
  const frames = new Subject<Buffer>();
  const connectivity = new BehaviorSubject<Connectivity>({ connected: true, since: 0 });
  const up: StreamFrame[] = [];
  const execs: string[] = [];
  const runtime = {
    name: 'test',
    listContainers: async () => runs,
    listSandboxes: async () => [{ id: 's1', podUid: 'u1', name: 'x', namespace: 'default', ip: '127.0.0.1', createdAt: 0, state: 'ready' }],
    ...(portForward ? { portForward } : {}),
    ...(withExec ? { execStream: async (id: string, command: string[]) => (execs.push(id), start(id, command)) } : {}),
  } as unknown as Runtime;
  const server = new StreamServer({
    nodeName: 'edge-1',
    cache: { objects: () => [{ kind: 'Pod', uid: 'u1', name: 'x', namespace: 'default', object: pod }] } as Pick<LocalCache, 'objects'>,
    runtime,
    clock: new FakeClock(),
    logger: silentLogger,
    frames$: frames,
    publish: async (payload) => {
      const decoded = decodeStreamFrame(payload);
      if (!decoded.ok) throw new Error(decoded.reason);
      up.push(decoded.message);
    },
    connectivity$: connectivity,
  });
  const order = new FrameOrder('e1.1');
  const send = (draft: FrameDraft): void => frames.next(encodeStreamFrame(order.stamp(draft)));
  const open = (request: StreamRequest, window = STREAM_WINDOW_BYTES): void => send({ type: 'open', pod: { namespace: 'default', name: 'x', uid: 'u1' }, request, window });
  const output = (channel: number): string => up.filter((f): f is Data => f.type === 'data' && f.channel === channel).map((f) => f.data.toString()).join('');
  const sentBytes = (): number => up.filter((f): f is Data => f.type === 'data').reduce((n, f) => n + f.data.length, 0);
  const ends = (): StreamFrame[] => up.filter((f) => f.type === 'end');
  const raw = (frame: StreamFrame): void => frames.next(encodeStreamFrame(frame));
  return { server, connectivity, up, execs, send, raw, open, output, sentBytes, ends };
}

const children: ChildProcess[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

/** An echo server on loopback, port 0: it answers what it got, upper-cased, once the client has finished. */
async function echoServer(): Promise<number> {
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    const got: Buffer[] = [];
    socket.on('data', (d: Buffer) => got.push(d));
    socket.on('end', () => socket.end(Buffer.concat(got).toString().toUpperCase()));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** The test runtime's port-forward: a loopback connection to the port. */
const loopbackForward = (_sandbox: string, port: number): Promise<Duplex> =>
  new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => resolve(socket));
    socket.once('error', reject);
  });

describe('the edge refusing an open', () => {
  it.each([
    ['a pod it does not hold', { ...exec(['true']) }, 'other', true, { error: 'pod default/x is not on node edge-1', reason: 'NotFound' }],
    ['a container the pod does not have', { ...exec(['true']), container: 'c9' }, 'u1', true, { error: 'container c9 is not valid for pod x', reason: 'BadRequest' }],
    ['a runtime that cannot exec', exec(['true']), 'u1', false, { error: 'the test runtime cannot exec into a container', reason: 'BadRequest' }],
  ] as const)('%s', async (_what, request, uid, withExec, end) => {
    const h = harness(() => passThroughSession().session, undefined, withExec);
    h.send({ type: 'open', pod: { namespace: 'default', name: 'x', uid }, request, window: STREAM_WINDOW_BYTES });
    await settle();
    expect(h.up).toEqual([{ type: 'end', stream: 'e1.1', seq: 0, end }]);
    expect(h.server.size).toBe(0);
  });

  it('a container with no running run, in kubelet\'s words', async () => {
    const h = harness(() => passThroughSession().session, [run('exited', 0)]);
    h.open(exec(['true']));
    await settle();
    expect(h.up).toEqual([{ type: 'end', stream: 'e1.1', seq: 0, end: { error: 'container not found ("c1")', reason: 'NotFound' } }]);
  });
});

describe('the edge running a stream', () => {
  it('runs a real process in the newest running run: stdin in, stdout and stderr out, its exit code', async () => {
    const h = harness((_id, command) => shellSession(command[2]!, { stdin: true, stdout: true, stderr: true, tty: false }, children));
    h.open(exec(['sh', '-c', 'cat; echo done >&2; exit 3']));
    await waitFor(() => h.up.some((f) => f.type === 'opened'), 'opened');
    expect(h.execs).toEqual(['c1-1']);
    h.send({ type: 'data', channel: STDIN, data: Buffer.from('hello\n') });
    h.send({ type: 'eof', channel: STDIN });
    await waitFor(() => h.ends().length > 0, 'the end');
    expect([h.output(STDOUT), h.output(STDERR)]).toEqual(['hello\n', 'done\n']);
    expect(h.ends()).toEqual([expect.objectContaining({ end: { exitCode: 3 } })]);
    expect(h.server.size).toBe(0);
  });

  it('kills the process when the broker session is lost, and when the cloud ends the stream', async () => {
    const h = harness((_id, command) => shellSession(command[2]!, { stdin: true, stdout: true, stderr: true, tty: false }, children));
    h.open(exec(['sh', '-c', 'sleep 30']));
    await waitFor(() => h.up.some((f) => f.type === 'opened'), 'opened');
    h.connectivity.next({ connected: false, since: 1 });
    await waitFor(() => children[0]!.signalCode === 'SIGKILL', 'the process killed');
    expect(h.server.size).toBe(0);
    expect(h.ends()).toEqual([]); // nobody to tell

    const fake = passThroughSession();
    const h2 = harness(() => fake.session);
    h2.open(exec(['sh']));
    await settle();
    h2.send({ type: 'end', end: { error: 'the client went away', reason: 'Unavailable' } });
    await settle();
    expect([fake.killed(), h2.server.size, h2.ends()]).toEqual([1, 0, []]);
  });

  it('pauses the output while out of credit, so that the producer is held back, and resumes on credit', async () => {
    const fake = passThroughSession();
    const h = harness(() => fake.session);
    const window = 64 * 1024;
    h.open(exec(['yes']), window);
    await settle();
    let produced = 0;
    const produce = (): void => {
      for (let i = 0; i < 64; i++) {
        produced += 8 * 1024;
        if (!fake.stdout.write(Buffer.alloc(8 * 1024, 121))) return;
      }
    };
    produce();
    await settle();
    produce(); // what the edge's reads made room for
    await settle();
    expect(h.sentBytes()).toBe(window);
    expect(fake.stdout.writableNeedDrain).toBe(true); // the producer is told to wait
    expect(produced).toBeLessThan(window + 4 * 16 * 1024); // bounded by the window and the pipes' buffers
    let drained = false;
    fake.stdout.once('drain', () => (drained = true));
    h.send({ type: 'credit', bytes: window });
    await settle();
    expect(h.sentBytes()).toBeGreaterThan(window);
    expect(drained).toBe(true);
  });

  it('grants credit for input only once the process has taken it (after a drain), and passes on eof and resize', async () => {
    const fake = passThroughSession(1024);
    const h = harness(() => fake.session);
    h.open(exec(['cat'], true));
    await settle();
    const quarter = STREAM_WINDOW_BYTES / 4;
    h.send({ type: 'data', channel: STDIN, data: Buffer.alloc(quarter / 2) });
    h.send({ type: 'data', channel: STDIN, data: Buffer.alloc(quarter / 2) });
    h.send({ type: 'resize', width: 120, height: 40 });
    await settle();
    expect(h.up.filter((f) => f.type === 'credit')).toEqual([]);
    expect(fake.resizes).toEqual([[120, 40]]);
    fake.stdin.resume(); // the process reads its input
    await settle();
    expect(h.up.filter((f) => f.type === 'credit')).toEqual([expect.objectContaining({ bytes: quarter })]);
    h.send({ type: 'eof', channel: STDIN });
    await settle();
    expect(fake.stdin.writableEnded).toBe(true);
    fake.stdout.end('bye');
    fake.exit(0);
    await settle();
    expect(h.ends()).toEqual([expect.objectContaining({ end: { exitCode: 0 } })]);
    expect(h.output(STDOUT)).toBe('bye');
  });

  it('ends a stream whose frames from the cloud were lost, and kills its process', async () => {
    const fake = passThroughSession();
    const h = harness(() => fake.session);
    h.open(exec(['sh']));
    await settle();
    h.up.length = 0;
    h.raw({ type: 'eof', stream: 'e1.1', seq: 5, channel: STDIN });
    await settle();
    expect(h.ends()).toEqual([expect.objectContaining({ end: { error: 'frames of the stream from the cloud were lost (number 1 never came)', reason: 'InternalError' } })]);
    expect(fake.killed()).toBe(1);
  });
});

describe('the edge forwarding a port', () => {
  it("connects to the port in the pod's sandbox, carries both ways and ends when the connection does", async () => {
    const port = await echoServer();
    const h = harness(() => passThroughSession().session, undefined, true, loopbackForward);
    h.open({ kind: 'portforward', port });
    await waitFor(() => h.up.some((f) => f.type === 'opened'), 'opened');
    h.send({ type: 'data', channel: STDIN, data: Buffer.from('hi there') });
    h.send({ type: 'eof', channel: STDIN });
    await waitFor(() => h.ends().length > 0, 'the end');
    expect(h.output(STDOUT)).toBe('HI THERE');
    expect(h.ends()).toEqual([expect.objectContaining({ end: { exitCode: 0 } })]);
  });

  it('ends with the reason a port refuses, and closes the connection when the link is lost', async () => {
    const closed = await echoServer();
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const h = harness(() => passThroughSession().session, undefined, true, loopbackForward);
    h.open({ kind: 'portforward', port: closed });
    await waitFor(() => h.ends().length > 0, 'the end');
    expect(h.ends()[0]).toMatchObject({ end: { error: expect.stringMatching(new RegExp(`^error forwarding port ${closed} to pod default/x: .*ECONNREFUSED`)), reason: 'InternalError' } });

    const port = await echoServer();
    const sockets: Duplex[] = [];
    const h2 = harness(() => passThroughSession().session, undefined, true, async (s, p) => {
      const socket = await loopbackForward(s, p);
      sockets.push(socket);
      return socket;
    });
    h2.open({ kind: 'portforward', port });
    await waitFor(() => h2.up.some((f) => f.type === 'opened'), 'opened');
    h2.connectivity.next({ connected: false, since: 1 });
    expect(sockets[0]!.destroyed).toBe(true);
    expect(h2.server.size).toBe(0);
  });
});
