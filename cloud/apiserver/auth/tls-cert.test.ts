import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createServer, connect } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { caUsable, certCovers, generateCa, generateServingCert } from './tls-cert.js';
import { realClock } from '../../../shared/clock.js';

describe('generateServingCert', () => {
  it('always writes a DER certificate OpenSSL parses (a random serial never gets a padded encoding)', () => {
    // About one random serial in 256 once had a leading zero byte, which DER forbids.
    for (let i = 0; i < 1024; i++) {
      const cert = generateServingCert({ commonName: 'kedge', hosts: ['127.0.0.1'], now: Date.UTC(2026, 0, 1) });
      expect(() => new X509Certificate(cert.certPem)).not.toThrow();
    }
  });
});

describe('a CA and the certificates it issues', () => {
  const now = Date.UTC(2026, 0, 1);
  const ca = generateCa({ commonName: 'test-ca', now });

  it('makes a CA that signs serving certificates a TLS client verifies against it', async () => {
    expect(new X509Certificate(ca.certPem).ca).toBe(true);
    expect(caUsable(ca, now)).toBe(true);
    const serving = generateServingCert({ commonName: 'server', hosts: ['127.0.0.1', 'localhost'], now: realClock.now(), issuer: ca });
    const leaf = new X509Certificate(serving.certPem);
    expect(leaf.ca).toBe(false);
    expect(leaf.issuer).toBe('CN=test-ca');
    expect(certCovers(serving, ['127.0.0.1'], realClock.now(), ca.certPem)).toBe(true);
    expect(certCovers(serving, ['127.0.0.1'], realClock.now(), generateCa({ commonName: 'test-ca', now }).certPem)).toBe(false);

    const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (s) => s.end('hello'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const text = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, ca: ca.certPem }, () => socket.once('data', (d) => resolve(String(d))));
        socket.on('error', reject);
      });
      expect(text).toBe('hello');
    } finally {
      server.close();
    }
  });
});
