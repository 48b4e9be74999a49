import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrCreateServingCert } from '../../cloud/apiserver/auth/credentials.js';
import { generateCa, generateServingCert } from '../../cloud/apiserver/auth/tls-cert.js';
import { startCloud } from '../../cloud/main.js';
import { realClock } from '../../shared/clock.js';
import { caFingerprint } from '../../shared/join-token.js';
import { memoryLogger } from '../../shared/log.js';

const run = promisify(execFile);
const openssl = (...args: string[]): Promise<{ stdout: string; stderr: string }> => run('openssl', args);
const hasOpenssl = await openssl('version').then(() => true, () => false);
/** `openssl verify`'s output, failures included (it exits non-zero then). */
const verify = (dir: string, ...args: string[]): Promise<string> =>
  openssl('verify', ...args).then((r) => r.stdout + r.stderr, (err: { stdout: string; stderr: string }) => `${err.stdout}${err.stderr}`.replaceAll(dir, '<dir>'));
const keyOf = (certPem: string): string => new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** Certificates as `openssl verify -x509_strict` wants them, for new data dirs and for those made before. */
describe.skipIf(!hasOpenssl)('the cloud’s certificates under openssl verify -x509_strict', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-strict-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a cloud’s data dir: openssl verify -x509_strict -CAfile ca.crt tls.crt prints OK', async () => {
    const cloud = await startCloud({ dataDir: dir, apiPort: 0, mqttPort: 0, store: 'memory', tlsSans: ['::ffff:10.0.0.1', 'cloud.example'] });
    try {
      expect(await verify(dir, '-x509_strict', '-CAfile', join(dir, 'ca.crt'), join(dir, 'tls.crt'))).toBe(`${join(dir, 'tls.crt')}: OK\n`);
    } finally {
      await cloud.stop();
    }
  });

  it('writes an IPv4-mapped IPv6 address as its 16 bytes', async () => {
    const now = realClock.now();
    const ca = generateCa({ commonName: 'kedge-ca', now });
    const leaf = generateServingCert({ commonName: 'kedge-cloud', hosts: ['::ffff:10.0.0.1', '::1', '2001:db8::7', '127.0.0.1'], now, issuer: ca });
    await writeFile(join(dir, 'leaf.crt'), leaf.certPem);
    const { stdout } = await openssl('x509', '-in', join(dir, 'leaf.crt'), '-noout', '-ext', 'subjectAltName');
    expect(stdout).toContain('IP Address:0:0:0:0:0:FFFF:A00:1, IP Address:0:0:0:0:0:0:0:1, IP Address:2001:DB8:0:0:0:0:0:7, IP Address:127.0.0.1');
    const x = new X509Certificate(leaf.certPem);
    expect(x.checkIP('::ffff:10.0.0.1')).toBe('::ffff:10.0.0.1');
    expect(x.checkIP('::ffff:10.0.0.2')).toBeUndefined();
  });

  it('a self-signed serving certificate passes too', async () => {
    const self = generateServingCert({ commonName: 'stranger', hosts: ['127.0.0.1'], now: realClock.now() });
    await writeFile(join(dir, 'self.crt'), self.certPem);
    expect(await verify(dir, '-x509_strict', '-CAfile', join(dir, 'self.crt'), join(dir, 'self.crt'))).toBe(`${join(dir, 'self.crt')}: OK\n`);
  });

  it('a data dir made before: the CA is issued again with its key kept (what trusted it still does), the serving certificate issued again', async () => {
    await writeOldStyleDataDir(dir);
    const oldCa = await readFile(join(dir, 'ca.crt'), 'utf8');
    const oldCaKey = await readFile(join(dir, 'ca.key'), 'utf8');
    expect(await verify(dir, '-x509_strict', '-CAfile', join(dir, 'ca.crt'), join(dir, 'tls.crt'))).toMatch(/Missing (Subject|Authority) Key Identifier/);
    const log = memoryLogger('cloud');

    const tls = await loadOrCreateServingCert(dir, ['127.0.0.1', 'localhost'], realClock.now(), log);

    expect(await verify(dir, '-x509_strict', '-CAfile', join(dir, 'ca.crt'), join(dir, 'tls.crt'))).toBe(`${join(dir, 'tls.crt')}: OK\n`);
    expect(await readFile(join(dir, 'ca.key'), 'utf8')).toBe(oldCaKey);
    expect(keyOf(tls.caPem)).toBe(keyOf(oldCa));
    expect(new X509Certificate(tls.caPem).subject).toBe(new X509Certificate(oldCa).subject);
    expect(caFingerprint(tls.caPem)).not.toBe(caFingerprint(oldCa)); // what a join token pins: the certificate
    await writeFile(join(dir, 'old-ca.crt'), oldCa);
    expect(await verify(dir, '-CAfile', join(dir, 'old-ca.crt'), join(dir, 'tls.crt'))).toBe(`${join(dir, 'tls.crt')}: OK\n`);
    expect(log.lines.filter((l) => l.includes('issued the CA certificate again'))).toHaveLength(1);

    expect(await loadOrCreateServingCert(dir, ['127.0.0.1', 'localhost'], realClock.now(), log)).toEqual(tls);
    expect(log.lines.filter((l) => l.includes('issued the CA certificate again'))).toHaveLength(1);
  });
});

/** A CA and serving certificate as kedge wrote them before key identifiers: no SKI, no AKI. */
async function writeOldStyleDataDir(dir: string): Promise<void> {
  const at = (f: string): string => join(dir, f);
  await openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', at('ca.key'));
  const noIds = ['-addext', 'subjectKeyIdentifier=none', '-addext', 'authorityKeyIdentifier=none'];
  await openssl('req', '-x509', '-new', '-key', at('ca.key'), '-subj', '/CN=kedge-ca', '-days', '3650', '-out', at('ca.crt'), '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', ...noIds);
  await openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', at('tls.key'));
  await openssl('req', '-new', '-key', at('tls.key'), '-subj', '/CN=kedge-cloud', '-out', at('tls.csr'));
  await writeFile(at('ext.cnf'), 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost,IP:::1\nsubjectKeyIdentifier=none\nauthorityKeyIdentifier=none\n');
  await openssl('x509', '-req', '-in', at('tls.csr'), '-CA', at('ca.crt'), '-CAkey', at('ca.key'), '-CAcreateserial', '-days', '3650', '-extfile', at('ext.cnf'), '-out', at('tls.crt'));
}
