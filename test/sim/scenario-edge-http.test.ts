import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actOnEdgeComponent } from '../../sim/scenario/edge-component.js';
import { httpGet } from '../../sim/scenario/http-get.js';

const TOKEN = 'edge-secret';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

describe("an edge's component, stopped and started through its local API", () => {
  let dir: string;
  let server: Server;
  let url: string;
  const seen: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-edge-component-'));
    // A stub of the edge's local API: POST /components/<name>/<action> with the bearer token.
    server = createServer((req: IncomingMessage, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      const [, , name, action] = (req.url ?? '').split('/');
      const reply = (status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return reply(401, { error: 'Unauthorized', message: 'stopping or starting a component needs the bearer token' });
      if (name !== 'kube-proxy') return reply(404, { error: 'NotFound', message: `no component "${name}" on this edge (its components: kube-proxy)` });
      reply(200, { name, running: action === 'start', since: '2026-01-01T00:00:00.000Z' });
    });
    url = await listen(server);
  });
  afterAll(async () => {
    await close(server);
    await rm(dir, { recursive: true, force: true });
  });

  it("posts the action with the token from the edge's data dir, and says what the edge refused", async () => {
    await writeFile(join(dir, 'local-api.token'), `${TOKEN}\n`);
    await actOnEdgeComponent(url, dir, 'kube-proxy', 'stop');
    await actOnEdgeComponent(url, dir, 'kube-proxy', 'start');
    expect(seen).toEqual([`POST /components/kube-proxy/stop Bearer ${TOKEN}`, `POST /components/kube-proxy/start Bearer ${TOKEN}`]);
    await expect(actOnEdgeComponent(url, dir, 'kube-dns', 'stop')).rejects.toThrow('stop kube-dns: no component "kube-dns" on this edge (its components: kube-proxy)');
    await writeFile(join(dir, 'local-api.token'), 'wrong\n');
    await expect(actOnEdgeComponent(url, dir, 'kube-proxy', 'stop')).rejects.toThrow('stop kube-proxy: stopping or starting a component needs the bearer token');
  });

  it('names the token file it cannot read', async () => {
    const missing = join(dir, 'nowhere');
    await expect(actOnEdgeComponent(url, missing, 'kube-proxy', 'stop')).rejects.toThrow(`stop kube-proxy: cannot read ${join(missing, 'local-api.token')}: ENOENT`);
  });
});

describe('one GET of a service expectation', () => {
  it('opens a connection of its own for each request, and gives the status and body', async () => {
    const connections = new Set<unknown>();
    const server = createServer((req, res) => {
      connections.add(req.socket);
      res.end(`answer ${req.url}\n`);
    });
    const url = await listen(server);
    try {
      expect(await httpGet(`${url}/who`, 1_000)).toEqual({ status: 200, body: 'answer /who\n' });
      expect(await httpGet(`${url}/who`, 1_000)).toEqual({ status: 200, body: 'answer /who\n' });
      expect(connections.size).toBe(2);
    } finally {
      await close(server);
    }
  });

  it('counts a refused connection and one that does not answer in time as no answer', async () => {
    const gone = createServer();
    const goneUrl = await listen(gone);
    await close(gone);
    expect(await httpGet(goneUrl, 1_000)).toEqual({ error: 'refused' });
    const silent = createServer(() => undefined);
    const silentUrl = await listen(silent);
    try {
      expect(await httpGet(silentUrl, 100)).toEqual({ error: 'timed out' });
    } finally {
      silent.closeAllConnections();
      await close(silent);
    }
  });
});
