import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DurableStore } from '../../cloud/store/durable-store.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { shareSubtrees, ValuePool } from '../../cloud/store/shared-subtrees.js';
import { deepFreeze } from '../../shared/freeze.js';

const pod = (phase: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  metadata: { name: 'p', labels: { app: 'a' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': { 'f:containers': {} } } }] },
  spec: { containers: [{ name: 'main', image: 'i' }], tolerations: [] },
  status: { phase, conditions: [{ type: 'Ready', status: 'True' }] },
  ...extra,
});

const event = (name: string, fields: Record<string, unknown>): Record<string, unknown> => ({
  metadata: { name, managedFields: [{ manager: 'kubelet', time: name, fieldsV1: fields }] },
});
const fieldsOf = (v: Record<string, unknown>): unknown => (v.metadata as { managedFields: { fieldsV1: unknown }[] }).managedFields[0]!.fieldsV1;

describe('shareSubtrees', () => {
  it('takes the older version\'s subtrees where they are equal, and keeps what changed', () => {
    const prev = deepFreeze(pod('Pending'));
    const next = pod('Running');
    const out = shareSubtrees(prev, structuredClone(next)) as Record<string, Record<string, unknown>>;
    expect(JSON.stringify(out)).toBe(JSON.stringify(next));
    expect(out.spec).toBe(prev.spec);
    expect(out.metadata).toBe(prev.metadata);
    expect(out.status).not.toBe(prev.status);
    expect(out.status!.conditions).toBe((prev.status as Record<string, unknown>).conditions);
  });

  it('returns the older version itself when the whole value is equal', () => {
    const prev = deepFreeze(pod('Running'));
    expect(shareSubtrees(prev, pod('Running'))).toBe(prev);
  });

  it.each([
    ['keys in another order', { b: 1, a: { x: 1 } }, { a: { x: 1 }, b: 1 }],
    ['a key more', { a: { x: 1 } }, { a: { x: 1 }, b: 1 }],
    ['a key fewer', { a: { x: 1 }, b: 1 }, { a: { x: 1 } }],
    ['a longer array', { a: [1] }, { a: [1, 2] }],
    ['an array for an object', { a: { 0: 1 } }, { a: [1] }],
    ['null for an object', { a: { x: 1 } }, { a: null }],
    ['a string for a number', { a: 1 }, { a: '1' }],
  ])('keeps the new value when it differs by %s, and serialises it exactly', (_, before, after) => {
    const prev = deepFreeze(structuredClone(before));
    const out = shareSubtrees(prev, structuredClone(after));
    expect(out).not.toBe(prev);
    expect(JSON.stringify(out)).toBe(JSON.stringify(after));
  });

  it('makes every empty object and array one shared frozen one, across values', () => {
    const a = shareSubtrees(undefined, { f: { 'f:x': {}, 'f:y': {} }, l: [] });
    const b = shareSubtrees(undefined, { g: {}, l: [] });
    expect(a.f['f:x']).toBe(a.f['f:y']);
    expect(a.f['f:x']).toBe(b.g);
    expect(a.l).toBe(b.l);
    expect(Object.isFrozen(b.g) && Object.isFrozen(b.l)).toBe(true);
    expect(JSON.stringify(a)).toBe('{"f":{"f:x":{},"f:y":{}},"l":[]}');
  });

  it('leaves what is not a plain object or array as it is (a Date is no empty object)', () => {
    const when = new Date(0);
    const bytes = Buffer.from('ab');
    const out = shareSubtrees({ when: {}, bytes: {} }, { when, bytes, empty: {} });
    expect(out.when).toBe(when);
    expect(out.bytes).toBe(bytes);
    expect(bytes.toString()).toBe('ab');
  });

  it('leaves a frozen value and a __proto__ key as they are', () => {
    const frozen = deepFreeze({ a: { x: 1 } });
    expect(shareSubtrees({ a: { x: 1 } }, frozen)).toBe(frozen);
    const parsed = JSON.parse('{"__proto__":{"x":1},"y":{}}') as Record<string, unknown>;
    const out = shareSubtrees(JSON.parse('{"__proto__":{"x":1},"y":{}}'), parsed);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":1},"y":{}}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe('ValuePool', () => {
  it('holds each short string once, and starts again when full', () => {
    const pool = new ValuePool({ strings: 3, fieldSets: 3 });
    for (const s of ['v1', 'Pod', 'v1', 'default', 'Pod']) expect(pool.string(s)).toBe(s);
    expect(pool.size.strings).toBe(3);
    pool.string('kubelet');
    expect(pool.size.strings).toBe(1);
  });

  it('leaves long strings out', () => {
    const pool = new ValuePool();
    const message = 'x'.repeat(65);
    expect(pool.string(message)).toBe(message);
    expect(pool.size.strings).toBe(0);
  });

  it('takes the values\' strings', () => {
    const pool = new ValuePool();
    shareSubtrees(undefined, { apiVersion: 'v1', metadata: { namespace: 'default' }, list: ['a', 'v1'] }, pool);
    expect(pool.size.strings).toBe(3); // v1, default, a
  });

  it('gives values written alike one frozen copy of their managedFields\' field sets', () => {
    const pool = new ValuePool();
    const a = shareSubtrees(undefined, event('a', { 'f:reason': {}, 'f:source': { 'f:host': {} } }), pool);
    const b = shareSubtrees(undefined, event('b', { 'f:reason': {}, 'f:source': { 'f:host': {} } }), pool);
    const c = shareSubtrees(undefined, event('c', { 'f:reason': {}, 'f:message': {} }), pool);
    expect(fieldsOf(b)).toBe(fieldsOf(a));
    expect(fieldsOf(c)).not.toBe(fieldsOf(a));
    expect(Object.isFrozen(fieldsOf(a)) && Object.isFrozen((fieldsOf(a) as Record<string, unknown>)['f:source'])).toBe(true);
    expect(JSON.stringify(b)).toBe(JSON.stringify(event('b', { 'f:reason': {}, 'f:source': { 'f:host': {} } })));
    expect(pool.size.fieldSets).toBe(2);
  });

  it('leaves out a field set over 1 KiB of JSON (one naming many keys of its own)', () => {
    const pool = new ValuePool();
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f:key-${i}`, {}]));
    shareSubtrees(undefined, event('a', many), pool);
    expect(pool.size.fieldSets).toBe(0);
  });
});

describe('the embedded store', () => {
  it('keeps of an update only what changed: the version before it and the new one share the rest', async () => {
    const store = new MemoryStore();
    const events: { value: unknown; prev?: unknown }[] = [];
    const sub = store.watch('/p', 0).subscribe((e) => events.push({ value: e.kv.value, prev: e.prevKv?.value }));
    await store.create('/p', pod('Pending'));
    const updated = await store.update('/p', pod('Running'));
    sub.unsubscribe();
    const [before, after] = events.map((e) => e.value as Record<string, unknown>);
    expect(after).toBe(updated.value);
    expect(events[1]!.prev).toBe(before);
    expect(after!.spec).toBe(before!.spec);
    expect(after!.metadata).toBe(before!.metadata);
    expect((after!.status as Record<string, unknown>).phase).toBe('Running');
    expect(JSON.stringify(after)).toBe(JSON.stringify(pod('Running')));
    await store.close();
  });

  it('shares as much in what it reads back from its data directory on opening', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-shared-'));
    try {
      const written = await DurableStore.open(dir);
      await written.create('/a', event('a', { 'f:reason': {} }));
      await written.create('/b', event('b', { 'f:reason': {} }));
      await written.close();
      const store = await DurableStore.open(dir);
      const [a, b] = [(await store.get('/a'))!.value, (await store.get('/b'))!.value] as Record<string, unknown>[];
      expect(fieldsOf(b!)).toBe(fieldsOf(a!));
      expect(JSON.stringify(b)).toBe(JSON.stringify(event('b', { 'f:reason': {} })));
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
