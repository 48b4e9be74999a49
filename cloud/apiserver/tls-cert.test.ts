import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateServingCert } from './tls-cert.js';

describe('generateServingCert', () => {
  it('always writes a DER certificate OpenSSL parses (a random serial never gets a padded encoding)', () => {
    // About one random serial in 256 once had a leading zero byte, which DER forbids.
    for (let i = 0; i < 1024; i++) {
      const cert = generateServingCert({ commonName: 'kedge', hosts: ['127.0.0.1'], now: Date.UTC(2026, 0, 1) });
      expect(() => new X509Certificate(cert.certPem)).not.toThrow();
    }
  });
});
