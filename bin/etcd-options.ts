import { Command, InvalidArgumentError, Option } from 'commander';
import type { EtcdSettings } from '../cloud/store/etcd/open-etcd-store.js';
import { formatGoDuration, parseGoDuration } from '../shared/go-duration.js';
import { list } from './options.js';

/** etcd's client URLs, comma-separated, each http:// or https:// with a host. */
export function etcdEndpoints(value: string): string[] {
  const urls = list(value);
  for (const url of urls) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || !parsed.host) throw new InvalidArgumentError(`"${url}" is not an etcd client URL such as http://127.0.0.1:2379.`);
  }
  return urls;
}

/** kube-apiserver's etcd flags (--etcd-servers is --etcd-endpoints here). */
export function withEtcdOptions(command: Command): Command {
  return command
    .option('--etcd-endpoints <urls>', "etcd's client URLs, comma-separated, e.g. http://10.0.0.1:2379,http://10.0.0.2:2379 (with --store etcd)", etcdEndpoints)
    .option('--etcd-cafile <file>', "CA bundle to verify etcd's serving certificate")
    .option('--etcd-certfile <file>', 'client certificate for etcd (with --etcd-keyfile)')
    .option('--etcd-keyfile <file>', 'private key of the etcd client certificate')
    .option('--etcd-prefix <prefix>', 'the prefix of every key kedge keeps in etcd', '/registry');
}

const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60_000;

/** A Go duration, 0 included (as kube-apiserver's "0 disables"). */
function compactionInterval(value: string): number {
  const ms = parseGoDuration(value);
  if (ms === undefined || ms < 0) throw new InvalidArgumentError(`expected a duration such as 5m or 0 (never), got "${value}".`);
  return ms;
}

/** kube-apiserver's --etcd-compaction-interval, for the cloud only (a backup or restore never compacts). */
export function withEtcdCompaction(command: Command): Command {
  const option = new Option('--etcd-compaction-interval <duration>', 'how often the clouds compact etcd between them, keeping that much history for watches to resume from (0: never)');
  return command.addOption(option.argParser(compactionInterval).default(DEFAULT_COMPACTION_INTERVAL_MS, formatGoDuration(DEFAULT_COMPACTION_INTERVAL_MS)));
}

/** The etcd settings from parsed options, or the reason they cannot be used. */
export function etcdSettings(o: Record<string, unknown>): EtcdSettings | string {
  const endpoints = o.etcdEndpoints as string[] | undefined;
  if (!endpoints || endpoints.length === 0) return '--store etcd needs --etcd-endpoints URL[,URL…] (the client URLs of the etcd members)';
  if ((o.etcdCertfile === undefined) !== (o.etcdKeyfile === undefined)) return '--etcd-certfile and --etcd-keyfile go together';
  return {
    endpoints,
    caFile: o.etcdCafile as string | undefined,
    certFile: o.etcdCertfile as string | undefined,
    keyFile: o.etcdKeyfile as string | undefined,
    prefix: o.etcdPrefix as string,
    compactionIntervalMs: o.etcdCompactionInterval as number | undefined,
  };
}
