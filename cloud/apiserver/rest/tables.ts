import type { KubeObject } from '../../../shared/types.js';
import { humanDuration } from '../../client/human-duration.js';
import type { Printer } from '../kinds/registry.js';

/** Server-side printing (meta.k8s.io/v1 Table), as kubectl get asks for it. */
export interface ColumnDefinition {
  name: string;
  type: string;
  format?: string;
  priority?: number;
  description?: string;
}

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: ListMeta;
  columnDefinitions: ColumnDefinition[] | null;
  rows: TableRow[];
}

/** A list's metadata (metav1.ListMeta), which a Table carries too. */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** True when the Accept header asks for a Table (`application/json;as=Table;v=v1;g=meta.k8s.io`). */
export function wantsTable(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => /;\s*as=Table\b/.test(part));
}

export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

/** The printer for kinds without one: Name and Age. */
export const defaultPrinter: Printer = {
  columns: [
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.' },
    { name: 'Age', type: 'string', description: 'Time since the object was created.' },
  ],
  cells: (obj, now) => [obj.metadata.name ?? '', age(obj.metadata.creationTimestamp, now)],
};

export function buildTable(
  printer: Printer,
  objects: KubeObject[],
  opts: { now: number; include: IncludeObject; resourceVersion?: string; withColumns?: boolean; listMeta?: ListMeta },
): Table {
  const metadata: ListMeta = opts.listMeta ?? (opts.resourceVersion === undefined ? {} : { resourceVersion: opts.resourceVersion });
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: opts.withColumns === false ? null : printer.columns,
    rows: objects.map((obj) => row(printer, obj, opts.now, opts.include)),
  };
}

function row(printer: Printer, obj: KubeObject, now: number, include: IncludeObject): TableRow {
  const cells = printer.cells(obj, now);
  if (include === 'None') return { cells };
  if (include === 'Object') return { cells, object: obj };
  return { cells, object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata } };
}

/** The Age column: kubectl's HumanDuration of the time since `timestamp`, "<unknown>" without one. */
export function age(timestamp: string | undefined, now: number): string {
  if (!timestamp) return '<unknown>';
  const then = Date.parse(timestamp);
  if (Number.isNaN(then)) return '<unknown>';
  return humanDuration(now - then);
}
