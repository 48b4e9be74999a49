import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createJoinToken } from '../../bin/commands/join-tokens.js';
import { createRemoteClient } from '../../cloud/apiserver/http/remote-handler.js';
import { generateCa, generateServingCert } from '../../cloud/apiserver/auth/tls-cert.js';
import { bootstrapTokenSecret, JOIN_NAMESPACE } from '../../cloud/join/secrets.js';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { CREDENTIAL_FILE, joinCloud, type EdgeCredential } from '../../edge/join.js';
import { realClock } from '../../shared/clock.js';
import { caFingerprint, formatJoinToken, newBootstrapToken } from '../../shared/join-token.js';
import { memoryLogger, silentLogger } from '../../shared/log.js';

const now = realClock.now();
const realCa = generateCa({ commonName: 'kedge-ca', now });
const rogueCa = generateCa({ commonName: 'kedge-ca', now });
const tokenFor = (caPem: string): string => formatJoinToken({ caHash: caFingerprint(caPem), ...newBootstrapToken() });
const certificates = (pem: string): number => pem.match(/-----BEGIN CERTIFICATE-----/g)?.length ?? 0;
const exists = (path: string): Promise<boolean> => stat(path).then(() => true, () => false);

interface Seen {
  method: string;
  url: string;
  authorization?: string;
}

/**
 * A cloud that is not the one the token pins, over HTTPS with a certificate of its own CA: it
 * serves `/cacerts` as told and hands out a credential to whoever presents a token.
 */
async function fakeCloud(cacerts: (res: import('node:http').ServerResponse) => void): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const serving = generateServingCert({ commonName: 'kedge-cloud', hosts: ['127.0.0.1'], now, issuer: rogueCa });
  const seen: Seen[] = [];
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    seen.push({ method: req.method!, url: req.url!, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    if (req.url === '/cacerts') return cacerts(res);
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ password: 'taken', brokerUrl: 'mqtts://127.0.0.1:1' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

describe('a join token pins exactly one CA', () => {
  let dir: string;
  const servers: Server[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-pin-'));
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });
  const joinFake = async (cacerts: (res: import('node:http').ServerResponse) => void): Promise<{ error: Error; seen: Seen[] }> => {
    const fake = await fakeCloud(cacerts);
    servers.push(fake.server);
    const error = await joinCloud({ cloudUrl: fake.url, token: tokenFor(realCa.certPem), node: 'edge-1', dataDir: dir, logger: silentLogger }).then(
      () => new Error('joined'),
      (err: Error) => err,
    );
    return { error, seen: fake.seen };
  };

  it.each([
    ['the real CA and the fake cloud’s own', realCa.certPem + rogueCa.certPem],
    ['the fake cloud’s own CA and the real one', rogueCa.certPem + realCa.certPem],
    ['the real CA twice', realCa.certPem + realCa.certPem],
  ])('a /cacerts with %s is refused before the token is sent, and nothing is kept', async (_what, bundle) => {
    const { error, seen } = await joinFake((res) => res.end(bundle));
    expect(error.message).toMatch(/(holds 2 PEM blocks: a join token pins exactly one CA certificate|is not the one the token pins).*: another cloud, or something in between; the token was not sent$/);
    expect(seen).toEqual([{ method: 'GET', url: '/cacerts' }]);
    expect(await exists(join(dir, CREDENTIAL_FILE))).toBe(false);
  });

  it.each([
    ['a private key beside the CA', realCa.certPem + realCa.keyPem],
    ['text beside the CA', `${realCa.certPem}trust me\n`],
  ])('a /cacerts with %s is refused', async (_what, body) => {
    const { error, seen } = await joinFake((res) => res.end(body));
    expect(error.message).toMatch(/cacerts (holds 2 PEM blocks|is not one PEM certificate and nothing else)/);
    expect(seen).toHaveLength(1);
  });

  it('a redirect is not followed, and an answer of more than 64 KiB is not read', async () => {
    const redirected = await joinFake((res) => res.writeHead(302, { location: 'https://elsewhere.example/cacerts' }).end());
    expect(redirected.error.message).toMatch(/answered 302, a redirect to https:\/\/elsewhere\.example\/cacerts: not followed/);
    expect(redirected.seen).toHaveLength(1);
    const huge = await joinFake((res) => res.end(realCa.certPem + 'x'.repeat(1 << 20)));
    expect(huge.error.message).toMatch(/answered with more than 64 KiB/);
    expect(huge.seen).toHaveLength(1);
  });
});

describe('what a joined edge keeps and trusts', () => {
  let dir: string;
  let cloud: Cloud;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-pin-cloud-'));
    cloud = await startCloud({ dataDir: join(dir, 'cloud'), apiPort: 0, mqttPort: 0, tlsOnly: true, store: 'memory' });
  });
  afterAll(async () => {
    await cloud?.stop();
    await rm(dir, { recursive: true, force: true });
  });
  async function newToken(): Promise<{ id: string; text: string }> {
    const { id, secret } = newBootstrapToken();
    await cloud.api.create({ resource: 'secrets', namespace: JOIN_NAMESPACE }, bootstrapTokenSecret({ id, secret, expires: realClock.now() + 3_600_000 }));
    return { id, text: formatJoinToken({ caHash: caFingerprint(cloud.caPem), id, secret }) };
  }

  it('keeps exactly the pinned CA certificate', async () => {
    const credential = await joinCloud({ cloudUrl: cloud.apiUrl, token: (await newToken()).text, node: 'edge-1', dataDir: join(dir, 'edge-1'), logger: silentLogger });
    expect(certificates(credential.caPem)).toBe(1);
    expect(caFingerprint(credential.caPem)).toBe(caFingerprint(cloud.caPem));
    const kept = JSON.parse(await readFile(join(dir, 'edge-1', CREDENTIAL_FILE), 'utf8')) as EdgeCredential;
    expect(kept.caPem).toBe(credential.caPem);
  });

  it('does not reuse a credential kept from before that trusts more than the pinned CA: it joins again', async () => {
    const token = await newToken();
    const edgeDir = join(dir, 'edge-2');
    const first = await joinCloud({ cloudUrl: cloud.apiUrl, token: token.text, node: 'edge-2', dataDir: edgeDir, logger: silentLogger });
    await writeFile(join(edgeDir, CREDENTIAL_FILE), JSON.stringify({ ...first, password: 'from-a-fake-cloud', caPem: first.caPem + rogueCa.certPem }));
    const log = memoryLogger('edge');
    const again = await joinCloud({ cloudUrl: cloud.apiUrl, token: token.text, node: 'edge-2', dataDir: edgeDir, logger: log });
    expect(again.password).not.toBe('from-a-fake-cloud');
    expect(certificates(again.caPem)).toBe(1);
    expect(log.lines.some((l) => l.includes('trusts more than the one CA the token pins: joining again'))).toBe(true);
    expect(await joinCloud({ cloudUrl: cloud.apiUrl, token: token.text, node: 'edge-2', dataDir: edgeDir, logger: silentLogger })).toEqual(again);
  });
});

describe('the CLI trusts exactly one CA too', () => {
  it('kedge token create --node refuses a CA file holding more than one certificate, before any token exists', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-pin-cli-'));
    try {
      await writeFile(join(dir, 'ca.crt'), realCa.certPem + rogueCa.certPem);
      // No kubeconfig and no cloud: getting that far would fail otherwise.
      await expect(createJoinToken({ dataDir: dir, node: 'edge-1', ttl: '1h' })).rejects.toThrow(`${join(dir, 'ca.crt')} holds 2 PEM blocks`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('sends no token over plain HTTP to an https:// server it has no CA for', () => {
    expect(() => createRemoteClient('https://192.0.2.1:6443', 'admin-token')).toThrow(/is https:\/\/ but no CA to check it against was given .*: no token goes to it over plain HTTP/);
    expect(() => createRemoteClient('https://127.0.0.1:6443', 'admin-token')).not.toThrow(); // loopback answers plain HTTP on the same port
  });
});
