import { describe, expect, it } from 'vitest';
import { identify, mayPublish, mayRetain, maySubscribe, ownsClientId, topicRights } from '../../cloud/hub/acl.js';

describe('broker identities', () => {
  it.each([
    ['kedge-cloud', true, { role: 'cloud' }],
    ['edge-1', true, { role: 'node', node: 'edge-1' }],
    ['edge-1', 'node', { role: 'node', node: 'edge-1' }],
    ['admin', 'cloud', { role: 'cloud' }],
    ['edge-1', false, undefined],
    ['', true, undefined],
    [undefined, true, undefined],
    ['Bad/Name+', true, undefined],
    ['kedge-cloud-1', 'node', undefined], // the cloud's names are no node's
    ['kedge-cloud-1', true, undefined],
  ] as const)('%s with verdict %s', (username, verdict, expected) => expect(identify(username, verdict)).toEqual(expected));
});

describe('client ids', () => {
  const edge = { role: 'node', node: 'edge-1' } as const;
  const cloud = { role: 'cloud' } as const;
  it.each([
    [edge, 'edge-1', true],
    [edge, 'edge-2', false],
    [edge, 'edge-1-b', false],
    [edge, 'kedge-cloud-1', false],
    [cloud, 'kedge-cloud-3f2a', true],
    [cloud, 'edge-1', false],
    [cloud, 'kedge-cloud', false],
  ] as const)('%j as %s: %s', (who, clientId, ok) => expect(ownsClientId(who, clientId)).toBe(ok));
});

describe('topic ACLs', () => {
  const edge = { role: 'node', node: 'edge-1' } as const;
  const cloud = { role: 'cloud' } as const;
  it.each([
    [edge, 'kedge/v1/edge-1/up', true],
    [edge, 'kedge/v1/edge-1/presence', true],
    [edge, 'kedge/v1/edge-1/down', false],
    [edge, 'kedge/v1/edge-2/up', false],
    [edge, 'other/topic', false],
    [edge, 'kedge/v1/edge-1/stream-up', true],
    [edge, 'kedge/v1/edge-2/stream-up', false],
    [edge, 'kedge/v1/edge-1/stream-down', false],
    [edge, 'kedge/v1/edge-1/stream', false],
    [cloud, 'kedge/v1/edge-1/down', true],
    [cloud, 'kedge/v1/edge-1/stream-down', true],
    // Near misses of a node's own topics.
    [edge, 'kedge/v1/edge-10/up', false],
    [edge, 'kedge/v1/edge-/up', false],
    [edge, 'kedge/v1/edge-1/up/', false],
    [edge, 'kedge/v1/edge-1/up/x', false],
    [edge, '/kedge/v1/edge-1/up', false],
    [edge, 'kedge/v1//edge-1/up', false],
    [edge, 'kedge/v2/edge-1/up', false],
    [edge, 'KEDGE/v1/edge-1/up', false],
    [edge, 'kedge/v1/Edge-1/up', false],
    [edge, 'kedge/v1/edge-1/UP', false],
    [edge, 'kedge/v1/+/up', false],
    [edge, 'kedge/v1/edge-1/#', false],
    [edge, '', false],
    [{ role: 'node', node: 'Bad/Name' }, 'kedge/v1/Bad/Name/up', false],
    [{ role: 'node', node: 'kedge-cloud-x' }, 'kedge/v1/kedge-cloud-x/up', false],
  ] as const)('publish %j to %s: %s', (who, topic, ok) => expect(mayPublish(who, topic)).toBe(ok));

  it.each([
    [edge, 'kedge/v1/edge-1/down', true],
    [edge, 'kedge/v1/edge-2/down', false],
    [edge, 'kedge/v1/+/down', false],
    [edge, 'kedge/v1/#', false],
    [edge, 'kedge/v1/edge-1/up', false],
    [edge, 'kedge/v1/edge-1/stream-down', true],
    [edge, 'kedge/v1/edge-2/stream-down', false],
    [edge, 'kedge/v1/+/stream-down', false],
    [edge, 'kedge/v1/edge-1/stream-up', false],
    [cloud, 'kedge/v1/+/up', true],
    [cloud, 'kedge/v1/+/stream-up', true],
  ] as const)('subscribe %j to %s: %s', (who, topic, ok) => expect(maySubscribe(who, topic)).toBe(ok));
});

describe('retained topics', () => {
  it.each([
    ['kedge/v1/edge-1/presence', true],
    ['kedge/v1/edge-1/up', false],
    ['kedge/v1/edge-1/stream-up', false],
    ['kedge/v1/edge-1/stream-down', false],
  ] as const)('%s: %s', (topic, ok) => expect(mayRetain(topic)).toBe(ok));
});

describe('topic rights, worked out once per connection', () => {
  it("are a node's own five topics, and nothing of another node with a name that starts the same", () => {
    const rights = topicRights({ role: 'node', node: 'edge-1' });
    const mine = ['up', 'presence', 'stream-up'].map((c) => `kedge/v1/edge-1/${c}`);
    expect(mine.every((t) => rights.mayPublish(t))).toBe(true);
    expect(['down', 'stream-down'].every((c) => rights.maySubscribe(`kedge/v1/edge-1/${c}`))).toBe(true);
    expect(mine.some((t) => rights.maySubscribe(t))).toBe(false);
    const other = topicRights({ role: 'node', node: 'edge-10' });
    expect(mine.some((t) => other.mayPublish(t))).toBe(false);
    expect(other.mayPublish('kedge/v1/edge-10/up')).toBe(true);
  });

  it('give the cloud every topic, and an identity that is no valid node none', () => {
    expect(topicRights({ role: 'cloud' }).mayPublish('anything/at/all')).toBe(true);
    const bad = topicRights({ role: 'node', node: 'a/b' });
    expect([bad.mayPublish('kedge/v1/a/b/up'), bad.maySubscribe('kedge/v1/a/b/down')]).toEqual([false, false]);
  });
});
