import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const OPENSSL = '/usr/bin/openssl';

export interface EtcdCerts {
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
}

async function signed(dir: string, name: string, subject: string, extensions: string): Promise<void> {
  const ext = join(dir, `${name}.ext`);
  await writeFile(ext, extensions);
  await exec(OPENSSL, ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.csr`), '-subj', subject]);
  await exec(OPENSSL, ['x509', '-req', '-in', join(dir, `${name}.csr`), '-CA', join(dir, 'ca.crt'), '-CAkey', join(dir, 'ca.key'), '-CAcreateserial', '-days', '2', '-out', join(dir, `${name}.crt`), '-extfile', ext]);
}

/** A CA, etcd's serving certificate for 127.0.0.1 and a client certificate, made with Debian's openssl in `dir`. */
export async function makeEtcdCerts(dir: string): Promise<EtcdCerts> {
  if (!existsSync(OPENSSL)) throw new Error(`${OPENSSL} is missing: install the Debian package openssl`);
  await exec(OPENSSL, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.crt'), '-days', '2', '-subj', '/CN=etcd-test-ca']);
  await signed(dir, 'server', '/CN=etcd', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  await signed(dir, 'client', '/CN=kedge', 'extendedKeyUsage=clientAuth\n');
  return {
    caFile: join(dir, 'ca.crt'),
    serverCertFile: join(dir, 'server.crt'),
    serverKeyFile: join(dir, 'server.key'),
    clientCertFile: join(dir, 'client.crt'),
    clientKeyFile: join(dir, 'client.key'),
  };
}
