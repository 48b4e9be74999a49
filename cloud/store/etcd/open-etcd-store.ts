import { readFile } from 'node:fs/promises';
import { Etcd3, type IOptions } from 'etcd3';
import { realClock, type Clock } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/log.js';
import { KedgeError } from '../../../shared/errors.js';
import { CLOUD_KEY_ROOT, EtcdStore, type EtcdStoreOptions } from './etcd-store.js';
import type { HistoryOptions } from '../watch-history.js';
import { retryUnsentCalls } from './etcd-retry.js';

/** How the cloud reaches etcd: kube-apiserver's --etcd-servers (here --etcd-endpoints), --etcd-cafile, --etcd-certfile, --etcd-keyfile, --etcd-prefix. */
export interface EtcdSettings extends EtcdStoreOptions {
  endpoints: string[];
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** A unary call etcd has not answered by then fails (504); default 10 s. Watches have no deadline. */
  requestTimeoutMs?: number;
  /** The cloud compacts etcd this often (kube-apiserver's --etcd-compaction-interval); unset or 0: never. */
  compactionIntervalMs?: number;
}


const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

async function readPem(path: string | undefined, what: string): Promise<Buffer | undefined> {
  if (path === undefined) return undefined;
  return readFile(path).catch((err: NodeJS.ErrnoException) => {
    throw new KedgeError('Invalid', `cannot read the etcd ${what} ${path}: ${err.code ?? err.message}`);
  });
}

/** etcd3's client options for `connection`: TLS when any file is given (or an https:// endpoint), a deadline on each unary call. */
export async function etcdClientOptions(connection: EtcdSettings): Promise<IOptions> {
  if (connection.endpoints.length === 0) throw new KedgeError('Invalid', 'no etcd endpoints given');
  if ((connection.certFile === undefined) !== (connection.keyFile === undefined)) {
    throw new KedgeError('Invalid', 'an etcd client certificate needs both --etcd-certfile and --etcd-keyfile');
  }
  const [ca, cert, key] = await Promise.all([readPem(connection.caFile, 'CA file'), readPem(connection.certFile, 'certificate file'), readPem(connection.keyFile, 'key file')]);
  const timeoutMs = connection.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  return {
    hosts: connection.endpoints,
    ...(ca || cert ? { credentials: { rootCertificate: ca as Buffer, certChain: cert, privateKey: key } } : {}),
    // No circuit breaker per endpoint (etcd3's would refuse a restarted member's calls for 5 s).
    faultHandling: { global: retryUnsentCalls(Math.max(2, connection.endpoints.length)), host: () => retryUnsentCalls(1) },
    // A gRPC deadline is a wall-clock instant, whatever clock the cloud runs on.
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: realClock.now() + timeoutMs }),
  };
}

/** Connects to etcd and opens the store there; Unavailable (503) with etcd's words if it does not answer. */
export async function openEtcdStore(connection: EtcdSettings, history?: HistoryOptions): Promise<EtcdStore> {
  const options = await etcdClientOptions(connection);
  return EtcdStore.open(() => new Etcd3(options), { ...connection, history });
}

/**
 * The cloud's store on etcd, each object where kube-apiserver keeps it (`<prefix>/pods/<namespace>/<name>`),
 * compacted every compactionIntervalMs; its watches served from windows of recent events as `history` says.
 */
export async function openCloudEtcdStore(connection: EtcdSettings, deps?: { clock: Clock; logger: Logger; history?: HistoryOptions }): Promise<EtcdStore> {
  const store = await openEtcdStore({ root: CLOUD_KEY_ROOT, ...connection }, deps?.history);
  if (deps && connection.compactionIntervalMs) store.compactEvery(connection.compactionIntervalMs, deps.clock, deps.logger.child('compactor'));
  return store;
}
