import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { startApiServer, type RunningApiServer } from '../../../cloud/apiserver/http/http-server.js';
import { ensureSystemNamespaces } from '../../../cloud/apiserver/kinds/bootstrap.js';
import { createApiServer } from '../../../cloud/apiserver/pipeline.js';
import { MemoryStore } from '../../../cloud/store/memory-store.js';
import { FakeClock } from '../../../shared/clock.js';
import { silentLogger } from '../../../shared/log.js';
import type { Pod } from '../../../shared/types.js';
import { ScriptedPodStream } from '../../support/scripted-pod-stream.js';

const headers = { Authorization: 'Bearer admin-t' };
const execPath = '/api/v1/namespaces/default/pods/p/exec?command=sh&stdout=true';

describe('the HTTP server\'s upgrades', () => {
  let store: MemoryStore;
  let server: RunningApiServer;
  const sockets: WebSocket[] = [];
  let opening: Promise<void> = Promise.resolve();
  let asked = 0;
  const opened: ScriptedPodStream[] = [];
  let script: (stream: ScriptedPodStream) => void = () => {};

  beforeEach(async () => {
    store = new MemoryStore();
    const clock = new FakeClock();
    const api = createApiServer({ store, clock, logger: silentLogger, tokens: [{ token: 'admin-t', user: 'admin', role: 'admin' }], podStreams: {
      open: async () => {
        asked++;
        await opening;
        const stream = new ScriptedPodStream();
        script(stream);
        return opened[opened.push(stream) - 1]!;
      },
    } });
    await ensureSystemNamespaces(api.loopback('admin-t'));
    const pod: Pod = { metadata: { namespace: 'default', name: 'p' }, spec: { nodeName: 'edge-1', containers: [{ name: 'c', image: 'i' }] } };
    await api.loopback('admin-t').create({ resource: 'pods', namespace: 'default' }, pod);
    server = await startApiServer({ handler: api.handle, gate: api.gate, port: 0, upgrade: api.upgrade, clock, upgradeLimits: { connections: 1, pingMs: 30_000 } });
  });

  afterEach(async () => {
    opened.length = 0;
    asked = 0;
    opening = Promise.resolve();
    script = () => {};
    for (const s of sockets) s.terminate();
    await server.close();
    await store.close();
  });

  /** Opens a WebSocket; resolves with the subprotocol of a 101 or the status of a refusal. */
  function connect(path: string): Promise<{ protocol: string } | { status: number; body: string }> {
    const ws = new WebSocket(server.url.replace('http', 'ws') + path, ['v5.channel.k8s.io'], { headers });
    sockets.push(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve({ protocol: ws.protocol }));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      ws.once('error', reject);
    });
  }

  it('accepts an exec with v5.channel.k8s.io, and refuses upgrades past its bound with 429', async () => {
    expect(await connect(execPath)).toEqual({ protocol: 'v5.channel.k8s.io' });
    const refused = await connect(execPath);
    expect(refused).toMatchObject({ status: 429 });
    expect(JSON.parse((refused as { body: string }).body)).toMatchObject({ kind: 'Status', reason: 'TooManyRequests' });
  });

  it('sends an exec whose output was waiting at the 101 only after the client has answered a ping', async () => {
    script = (stream) => {
      stream.output(1, 'hi\n');
      stream.end({ exitCode: 0 });
    };
    const ws = new WebSocket(server.url.replace('http', 'ws') + execPath, ['v5.channel.k8s.io'], { headers, autoPong: false });
    sockets.push(ws);
    const heard: string[] = [];
    ws.on('message', (data: Buffer) => heard.push(`${data[0]}:${data.subarray(1).toString()}`));
    const first = await new Promise((resolve) => {
      ws.once('ping', () => resolve('ping'));
      ws.once('message', () => resolve('message'));
    });
    expect([first, heard]).toEqual(['ping', []]);
    ws.pong();
    const code = await new Promise((resolve) => ws.once('close', resolve));
    expect([heard, code]).toEqual([['1:', '1:hi\n', '3:{"metadata":{},"status":"Success"}'], 1000]);
  });

  it('lets go of a stream that opened after its client left', async () => {
    let open!: () => void;
    opening = new Promise((resolve) => (open = resolve));
    const ws = new WebSocket(server.url.replace('http', 'ws') + execPath, ['v5.channel.k8s.io'], { headers });
    ws.on('error', () => {});
    await vi.waitFor(() => expect(asked).toBe(1)); // the server is opening the stream
    ws.terminate();
    await new Promise((resolve) => ws.once('close', resolve));
    open();
    // Whether the server saw the hang-up before or after the stream opened, the stream is let go.
    await vi.waitFor(() => expect(['the WebSocket handshake failed', 'the client closed the connection']).toContain(opened[0]?.cancelled));
  });

  it('serves a plain request that asks for an upgrade elsewhere (h2c) as HTTP/1.1', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${server.url}/api/v1/namespaces/default/pods/p`, { headers: { ...headers, Connection: 'Upgrade', Upgrade: 'h2c' } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.once('error', reject);
      req.end();
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Pod', metadata: { name: 'p' } });
  });
});
