import type { Lease } from '../../shared/config-types.js';
import { getOrUndefined, type ApiClient } from '../client/client.js';
import { leaseSpecOf, type LeaderRecord } from './record.js';

export interface LockName {
  namespace: string;
  name: string;
  /** kedge: marks the holder writes on the Lease with each acquire and renewal (client-go writes none). */
  annotations?: Record<string, string>;
}

/**
 * client-go's resourcelock.LeaseLock: reads and writes one coordination.k8s.io/v1 Lease. Every
 * update is optimistic, against the resourceVersion of the Lease last read or written, so two
 * candidates never both win one term.
 */
export class LeaseLock {
  private lease: Lease | undefined;

  constructor(
    private readonly api: ApiClient,
    readonly name: LockName,
  ) {}

  /** The Lease last read or written (the object an Event is about). */
  get last(): Lease | undefined {
    return this.lease;
  }

  describe(): string {
    return `${this.name.namespace}/${this.name.name}`;
  }

  async get(): Promise<Lease | undefined> {
    const lease = await getOrUndefined(() => this.api.get<Lease>(this.ref(this.name.name)));
    if (lease) this.lease = lease;
    return lease;
  }

  async create(record: LeaderRecord): Promise<Lease> {
    const { namespace, name, annotations } = this.name;
    const body: Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { namespace, name, ...(annotations && { annotations }) }, spec: leaseSpecOf(record) };
    this.lease = await this.api.create<Lease>(this.ref(), body);
    return this.lease;
  }

  async update(record: LeaderRecord): Promise<Lease> {
    if (!this.lease) throw new Error(`lease ${this.describe()} not yet read`);
    const marks = this.name.annotations && { annotations: { ...this.lease.metadata.annotations, ...this.name.annotations } };
    this.lease = await this.api.replace<Lease>(this.ref(this.name.name), { ...this.lease, metadata: { ...this.lease.metadata, ...marks }, spec: leaseSpecOf(record) });
    return this.lease;
  }

  private ref(name?: string) {
    return { resource: 'leases', group: 'coordination.k8s.io', namespace: this.name.namespace, ...(name === undefined ? {} : { name }) };
  }
}
