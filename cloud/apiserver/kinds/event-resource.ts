import type { KubeObject } from '../../../shared/types.js';
import { nameColumn } from './printers.js';
import type { Printer, ResourceDef } from './registry.js';
import { humanDuration } from '../../client/human-duration.js';

/** core/v1 Events, as `kubectl get events` and `kubectl describe` read them. */
interface EventShape extends KubeObject {
  involvedObject?: { kind?: string; name?: string; fieldPath?: string };
  reason?: string;
  message?: string;
  type?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  count?: number;
}

const since = (timestamp: string | undefined, now: number): string => {
  const at = timestamp ? Date.parse(timestamp) : NaN;
  return Number.isNaN(at) ? '<unknown>' : humanDuration(now - at);
};

const eventPrinter: Printer = {
  columns: [
    { name: 'Last Seen', type: 'string', description: 'Time since the event was last seen.' },
    { name: 'Type', type: 'string', description: 'Type of this event (Normal, Warning).' },
    { name: 'Reason', type: 'string', description: 'The reason for the event.' },
    { name: 'Object', type: 'string', description: 'The object this event is about.' },
    { name: 'Subobject', type: 'string', priority: 1, description: 'The part of the object this event is about.' },
    { name: 'Source', type: 'string', priority: 1, description: 'The component reporting this event.' },
    { name: 'Message', type: 'string', description: 'A human-readable description of the status of this operation.' },
    { name: 'First Seen', type: 'string', priority: 1, description: 'Time since the event was first seen.' },
    { name: 'Count', type: 'string', priority: 1, description: 'The number of times this event has occurred.' },
    { ...nameColumn, priority: 1 },
  ],
  cells(obj, now) {
    const e = obj as EventShape;
    const involved = e.involvedObject ?? {};
    return [
      since(e.lastTimestamp ?? e.eventTime, now),
      e.type ?? '',
      e.reason ?? '',
      `${(involved.kind ?? '').toLowerCase()}/${involved.name ?? ''}`,
      involved.fieldPath ?? '',
      [e.source?.component, e.source?.host].filter(Boolean).join(', '),
      e.message ?? '',
      since(e.firstTimestamp ?? e.eventTime, now),
      String(e.count ?? 1),
      e.metadata.name ?? '',
    ];
  },
};

export const eventResource: ResourceDef = {
  group: '', version: 'v1', resource: 'events', singular: 'event', kind: 'Event', namespaced: true,
  shortNames: ['ev'], categories: [], subresources: [], printer: eventPrinter,
  strategy: {
    // kube's event field set (pkg/registry/core/event/strategy.go); kubectl describe selects
    // a pod's Events by involvedObject.name, namespace, kind and uid.
    fields(obj) {
      const e = obj as EventShape & { involvedObject?: { namespace?: string; uid?: string; apiVersion?: string; resourceVersion?: string }; reportingComponent?: string };
      const inv = e.involvedObject ?? {};
      return {
        'involvedObject.kind': inv.kind ?? '', 'involvedObject.name': inv.name ?? '', 'involvedObject.namespace': inv.namespace ?? '',
        'involvedObject.uid': inv.uid ?? '', 'involvedObject.apiVersion': inv.apiVersion ?? '', 'involvedObject.resourceVersion': inv.resourceVersion ?? '',
        'involvedObject.fieldPath': inv.fieldPath ?? '', reason: e.reason ?? '', reportingComponent: e.reportingComponent ?? '', type: e.type ?? '',
        source: e.source?.component || e.reportingComponent || '',
      };
    },
  },
};
