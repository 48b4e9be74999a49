import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { logSettings, withLogOptions } from '../log-options.js';
import { port } from '../options.js';
import { runUntilStopped } from '../process-lifetime.js';

/** `kedge broker`: one member of a broker cluster on a shared redis-server (docs/operations.md, "A broker cluster"). */
export function brokerCommand(): Command {
  const command = withLogOptions(new Command('broker')
    .description('Run one member of an MQTT broker cluster: members share sessions, QoS 1 messages and retained presence through Redis; edges and clouds connect to any (--broker URL,URL,…).')
    .requiredOption('--redis <url>', 'the Redis every member shares, e.g. redis://10.0.0.5:6379')
    .requiredOption('--password-file <file>', 'who may connect: the passwd file of kedge broker-config mosquitto (read again when it changes)')
    .option('--host <address>', 'the address to listen on (beyond loopback, add TLS)', '127.0.0.1')
    .option('--port <port>', 'the MQTT port (8883 is usual with TLS)', port, 1883)
    .option('--tls-cert-file <file>', 'serve MQTT over TLS with this certificate (PEM), e.g. the cloud\'s serving certificate made with --tls-san for this host')
    .option('--tls-private-key-file <file>', 'the private key of --tls-cert-file'));
  return command.action(async (o) => {
    if (Boolean(o.tlsCertFile) !== Boolean(o.tlsPrivateKeyFile)) command.error('error: --tls-cert-file and --tls-private-key-file go together', { code: 'kedge.tlsPair' });
    const { startBrokerMember } = await import('../../cloud/broker-member/member.js');
    await runUntilStopped('broker', async (logger) => {
      const tls = o.tlsCertFile ? { certPem: await readFile(o.tlsCertFile, 'utf8'), keyPem: await readFile(o.tlsPrivateKeyFile, 'utf8') } : undefined;
      const member = await startBrokerMember({ host: o.host, port: o.port, redisUrl: o.redis, passwordFile: resolve(o.passwordFile), logger, ...(tls ? { tls } : {}) });
      // Scripts and tests wait for this exact line.
      process.stdout.write(`kedge broker ready mqtt=${member.url}\n`);
      return { stop: () => member.close() };
    }, logSettings(o), [{ port: o.port, host: o.host, option: '--port', what: 'the broker' }]);
  });
}
