import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type { Redis } from 'ioredis';

/** The part of aedes-persistence-redis' AsyncRedisPersistence used here (the package ships no types). */
interface AsyncRedisPersistence {
  setup(broker: unknown): Promise<void>;
  createRetainedStreamCombi(patterns: string[]): AsyncIterable<unknown>;
  outgoingStream(client: unknown): AsyncIterable<unknown>;
  streamWill(brokers?: Record<string, number>): AsyncIterable<Will>;
  delWill(client: { id: string; brokerId: string }): Promise<unknown>;
  destroy(): Promise<void>;
}

interface Will {
  clientId: string;
  brokerId: string;
}

type PersistenceClass = new (options: { conn: Redis }) => AsyncRedisPersistence;

const AsyncRedisPersistence = createRequire(import.meta.url)('aedes-persistence-redis/asyncPersistence.js') as PersistenceClass;

/**
 * aedes-persistence-redis 11.2 for aedes 1.2: it was written against aedes-persistence 10,
 * whose streams were async generators; aedes 1.2 pipes them (`stream.pipe`), so each is
 * handed over as a Readable. Sessions, subscriptions, QoS 1 inflight and retained messages
 * live in Redis, shared by every member.
 *
 * The last wills of clients of a dead member are deleted, never published: the client has
 * usually reconnected to another member by the time the others notice (three heartbeats),
 * and its old will ("offline") would then contradict the "online" it has just said.
 */
export class SharedRedisPersistence extends AsyncRedisPersistence {
  override createRetainedStreamCombi(patterns: string[]): Readable {
    return Readable.from(super.createRetainedStreamCombi(patterns));
  }

  override outgoingStream(client: unknown): Readable {
    return Readable.from(super.outgoingStream(client));
  }

  override streamWill(brokers?: Record<string, number>): Readable {
    return Readable.from(this.dropWillsOfDeadMembers(brokers));
  }

  private async *dropWillsOfDeadMembers(brokers?: Record<string, number>): AsyncGenerator<Will> {
    for await (const will of super.streamWill(brokers)) await this.delWill({ id: will.clientId, brokerId: will.brokerId });
    yield* []; // nothing to publish
  }
}

/** The persistence's options from a redis:// URL (redis://[:password@]host[:port][/db]). */
export function redisOptions(url: string): { host: string; port: number; password?: string; username?: string; db?: number } {
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:') throw new Error(`"${url}" is not a redis:// URL`);
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : undefined;
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(db !== undefined && Number.isInteger(db) ? { db } : {}),
  };
}
