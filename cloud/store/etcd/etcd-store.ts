import type { Etcd3, ICompare, IKeyValue, IRangeResponse, IRequestOp, ITxnResponse } from 'etcd3';
import type { Observable } from 'rxjs';
import { KedgeError } from '../../../shared/errors.js';
import { deepFreeze } from '../../../shared/freeze.js';
import { valueJson } from '../record-codec.js';
import { tooLargeResourceVersion } from '../list-at.js';
import type { KeyValue, ListOptions, ListResult, Store, WatchEvent } from '../store.js';
import { currentRevision, etcdError, prefixEnd, toKeyValue } from './etcd-codec.js';
import { etcdWatch, expiredFeed } from './etcd-watch.js';
import { EtcdKeys } from './etcd-keys.js';
import { startCompactor } from './etcd-compactor.js';
import { EtcdFollower } from './etcd-follower.js';
import { MISS } from './etcd-read-cache.js';
import type { HistoryOptions } from '../watch-history.js';
import type { Clock } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/log.js';

export interface EtcdStoreOptions {
  /** Every key is stored under it (kube-apiserver's --etcd-prefix; default /registry). */
  prefix?: string;
  /** What every key of this store begins with, kept in etcd as the prefix (see EtcdKeys); default none. */
  root?: string;
  /**
   * Keep only this many revisions of history: each write compacts etcd behind it (etcd-wide,
   * as every compaction is). Unset, this store never compacts on its own.
   */
  historySize?: number;
  /** Entries per range request when listing (default 1,000). */
  pageSize?: number;
  /** How long a get waits for the store's watch to reach etcd's revision before it reads etcd instead (default 100 ms). */
  cacheWaitMs?: number;
  /** The windows of recent events watches are served from (the embedded stores' options: resource prefixes, clock). */
  history?: HistoryOptions;
}

export const DEFAULT_ETCD_PREFIX = '/registry';
/** Every key the apiserver keeps begins with it (kinds/registry.ts, rest/reservations.ts). */
export const CLOUD_KEY_ROOT = '/registry';

const keysOf = (options: EtcdStoreOptions): EtcdKeys => new EtcdKeys(options.prefix ?? DEFAULT_ETCD_PREFIX, options.root);

/**
 * The Store on etcd: etcd's revision is the store's, writes are transactions comparing
 * create/mod revisions, watches are etcd watches with prevKv. `revision` follows every
 * response header and a watch of the whole prefix, so it also moves with other writers.
 * That watch (after a list of the whole store) also fills a read cache that answers gets once
 * it has shown etcd's revision of the moment (etcd-follower.ts).
 */
export class EtcdStore implements Store {
  private currentRevision = 0;
  private compacted = 0;
  private readonly keys: EtcdKeys;
  private readonly follower: EtcdFollower;
  private closed = false;
  private connected = true;
  private compaction: Promise<void> = Promise.resolve();
  private stopCompactor = (): void => {};

  private constructor(
    private readonly connect: () => Etcd3,
    private client: Etcd3,
    private readonly options: EtcdStoreOptions,
    revision: number,
  ) {
    this.keys = keysOf(options);
    this.currentRevision = revision;
    this.follower = new EtcdFollower({
      listAll: () => this.list(''),
      watchAll: (after) => this.watchEtcd(this.keys.all, after, true),
      revisionNow: () => this.readRevision(),
      cacheWaitMs: options.cacheWaitMs ?? 100,
      history: options.history ?? {},
    });
    this.follower.start();
  }

  /** etcd's revision now: a range of one key, the cheapest read that returns it. */
  private async readRevision(): Promise<number> {
    const res = await this.call(() => this.client.kv.range({ key: this.keys.all, keys_only: true }));
    this.noteRevision(res.header.revision);
    return Number(res.header.revision);
  }

  /** Opens the store on a client `connect` makes (closed with the store); fails with Unavailable if etcd does not answer. */
  static async open(connect: () => Etcd3, options: EtcdStoreOptions = {}): Promise<EtcdStore> {
    const client = connect();
    const revision = await currentRevision(client, keysOf(options).all);
    return new EtcdStore(connect, client, options, revision);
  }

  /** Closes the connection (`kedge component stop store`): calls fail with Unavailable until `reconnect`. */
  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.connected = false;
    this.follower.stop();
    await this.compaction;
    this.client.close();
  }

  /** Connects again; fails with Unavailable (and stays disconnected) if etcd does not answer. */
  async reconnect(): Promise<void> {
    if (this.connected) return;
    const client = this.connect();
    this.noteRevision(await currentRevision(client, this.keys.all));
    this.client = client;
    this.connected = true;
    if (!this.closed) this.follower.start();
  }

  get revision(): number {
    return this.currentRevision;
  }

  /** Whether gets are answered from the read cache (false while it loads, and while disconnected). */
  get readCacheLoaded(): boolean {
    return this.follower.loaded;
  }

  get compactedRevision(): number {
    return this.compacted;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    const etcdKey = this.etcdKey(key);
    const cached = await this.follower.read(key);
    if (cached !== MISS) return cached;
    const res = await this.call(() => this.client.kv.range({ key: etcdKey }));
    this.noteRevision(res.header.revision);
    return res.kvs[0] && this.toKeyValue(res.kvs[0]);
  }

  /**
   * A page: one range at `options.revision` with etcd's count of what is left; without a
   * limit, pages through the range at the revision of its first page, so the whole list is one snapshot.
   */
  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const end = prefixEnd(this.etcdKey(prefix));
    const start = this.etcdKey(options.fromKey !== undefined && options.fromKey > prefix ? options.fromKey : prefix);
    if (options.limit !== undefined && options.limit > 0) {
      const res = await this.range(start, end, options.limit, options.revision);
      return { items: res.kvs.map((kv) => this.toKeyValue(kv)), revision: options.revision ?? Number(res.header.revision), remaining: Number(res.count) - res.kvs.length };
    }
    const items: KeyValue[] = [];
    let revision = options.revision;
    for (let from = start; ;) {
      const res = await this.range(from, end, this.options.pageSize ?? 1_000, revision);
      revision ??= Number(res.header.revision);
      for (const kv of res.kvs) items.push(this.toKeyValue(kv));
      if (!res.more || res.kvs.length === 0) break;
      from = Buffer.concat([res.kvs.at(-1)!.key, Buffer.from([0])]);
    }
    return { items, revision, remaining: 0 };
  }

  private async range(from: Buffer, end: Buffer, limit: number, revision: number | undefined): Promise<IRangeResponse> {
    try {
      const res = await this.call(() => this.client.kv.range({ key: from, range_end: end, limit, revision, sort_order: 'Ascend', sort_target: 'Key' }));
      this.noteRevision(res.header.revision);
      return res;
    } catch (err) {
      if (revision !== undefined && /future revision/.test((err as Error).message)) throw tooLargeResourceVersion(revision, this.currentRevision);
      if (revision !== undefined && (err as KedgeError).code === 'Expired') throw new KedgeError('Expired', `too old resource version: ${revision} (etcd: compacted)`);
      throw err;
    }
  }

  async create(key: string, value: unknown): Promise<KeyValue> {
    const json = valueJson(value);
    const res = await this.txn(key, [this.compare(key, 'Create', 'Equal', 0)], { request_put: { key: this.etcdKey(key), value: Buffer.from(json) } });
    if (!res.succeeded) throw new KedgeError('AlreadyExists', `key ${key} already exists`);
    const revision = Number(res.header.revision);
    return this.written({ key, value: deepFreeze(JSON.parse(json)), createRevision: revision, modRevision: revision });
  }

  async update(key: string, value: unknown, expectedModRevision?: number): Promise<KeyValue> {
    const json = valueJson(value);
    const res = await this.conditional(key, expectedModRevision, { request_put: { key: this.etcdKey(key), value: Buffer.from(json), prev_kv: true } });
    const prev = res.responses[0]!.response_put.prev_kv;
    return this.written({ key, value: deepFreeze(JSON.parse(json)), createRevision: Number(prev.create_revision), modRevision: Number(res.header.revision) });
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const res = await this.conditional(key, expectedModRevision, { request_delete_range: { key: this.etcdKey(key), prev_kv: true } });
    const prev = this.toKeyValue(res.responses[0]!.response_delete_range.prev_kvs[0]!);
    return this.written({ ...prev, modRevision: Number(res.header.revision) });
  }

  /** From the follower's history when it holds `afterRevision` on (one etcd watch for all), else an etcd watch of its own. */
  watch(prefix: string, afterRevision: number): Observable<WatchEvent> {
    if (afterRevision < this.compacted) return expiredFeed(afterRevision, this.compacted);
    return this.follower.watch(prefix, afterRevision) ?? this.watchEtcd(this.etcdKey(prefix), afterRevision);
  }

  private watchEtcd(key: Buffer, afterRevision: number, withoutPrevKv = false): Observable<WatchEvent> {
    return etcdWatch({ client: this.client, key, keys: this.keys, afterRevision, onRevision: (r) => this.noteRevision(r), withoutPrevKv });
  }

  async compact(revision: number): Promise<void> {
    const target = Math.min(revision, this.currentRevision);
    if (target <= this.compacted) return;
    this.compacted = target;
    await this.follower.compact(target);
    await this.compactEtcd(target);
  }

  private async compactEtcd(target: number): Promise<void> {
    try {
      await this.call(() => this.client.kv.compact({ revision: target }));
    } catch (err) {
      if ((err as KedgeError).code !== 'Expired') throw err; // compacted further already
    }
  }

  /** Compacts etcd every interval as kube-apiserver does, sharing the work with every other cloud on it (etcd-compactor.ts); until close. */
  compactEvery(intervalMs: number, clock: Clock, logger: Logger): void {
    this.stopCompactor();
    this.stopCompactor = startCompactor({ client: () => this.client, compact: (revision) => this.compact(revision), intervalMs, clock, logger });
  }

  async close(): Promise<void> {
    this.stopCompactor();
    this.closed = true;
    await this.disconnect();
  }

  private etcdKey(key: string): Buffer {
    return this.keys.toEtcd(key);
  }

  private toKeyValue(kv: IKeyValue): KeyValue {
    return toKeyValue(kv, this.keys);
  }

  private compare(key: string, target: 'Create' | 'Mod', result: 'Equal' | 'Greater', revision: number): ICompare {
    const field = target === 'Create' ? 'create_revision' : 'mod_revision';
    return { key: this.etcdKey(key), target, result, [field]: revision };
  }

  /** `op` if the key exists (at `expected`, if given); NotFound or Conflict otherwise. */
  private async conditional(key: string, expected: number | undefined, op: IRequestOp): Promise<ITxnResponse> {
    const compares = [this.compare(key, 'Create', 'Greater', 0)];
    if (expected !== undefined) compares.push(this.compare(key, 'Mod', 'Equal', expected));
    const res = await this.txn(key, compares, op);
    if (res.succeeded) return res;
    const current = res.responses[0]!.response_range.kvs[0];
    if (!current) throw new KedgeError('NotFound', `key ${key} not found`);
    throw new KedgeError('Conflict', `key ${key} is at revision ${current.mod_revision}, not ${expected}`);
  }

  /** One transaction: `op` if every compare holds, else a read of the key. */
  private async txn(key: string, compare: ICompare[], op: IRequestOp): Promise<ITxnResponse> {
    const res = await this.call(() => this.client.kv.txn({ compare, success: [op], failure: [{ request_range: { key: this.etcdKey(key) } }] }));
    this.noteRevision(res.header.revision);
    return res;
  }

  /** After a write: with a history window, compacts what fell out of it (in the background, in order). */
  private written(kv: KeyValue): KeyValue {
    this.follower.wrote(kv.modRevision);
    const size = this.options.historySize;
    if (size !== undefined && kv.modRevision - size > this.compacted) {
      const target = kv.modRevision - size;
      this.compacted = target;
      this.compaction = this.compaction.then(() => this.follower.compact(target)).then(() => this.compactEtcd(target)).catch(() => {});
    }
    return kv;
  }

  private noteRevision(revision: string | number): void {
    this.currentRevision = Math.max(this.currentRevision, Number(revision));
  }

  private async call<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      throw etcdError(err);
    }
  }
}
