import { describe, expect, it } from 'vitest';
import { nodeReadyEvents } from '../../../edge/events/node-events.js';
import type { EventType, InvolvedObject } from '../../../edge/events/event-types.js';
import type { Node } from '../../../shared/types.js';

const node = (ready: boolean): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1' }, status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } }) as Node;

describe('NodeReady and NodeNotReady', () => {
  it('are told on the first status and on each change of the Ready condition, not on every status', () => {
    const told: string[] = [];
    const record = (about: InvolvedObject, type: EventType, reason: string, message: string) => told.push(`${about.kind}/${about.uid} ${type} ${reason}: ${message}`);
    const observe = nodeReadyEvents({ record }, 'edge-1');
    for (const ready of [true, true, false, false, true]) observe(node(ready));
    expect(told).toEqual([
      'Node/edge-1 Normal NodeReady: Node edge-1 status is now: NodeReady',
      'Node/edge-1 Normal NodeNotReady: Node edge-1 status is now: NodeNotReady',
      'Node/edge-1 Normal NodeReady: Node edge-1 status is now: NodeReady',
    ]);
  });
});
