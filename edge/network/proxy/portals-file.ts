import { join } from 'node:path';
import type { Logger } from '../../../shared/log.js';
import { JsonStateFile, type SpacedWrites } from '../../json-state-file.js';

/** Where each Service port's portal port is remembered, under the edge's data dir. */
export const PORTALS_FILE = join('kube-proxy', 'portals.json');

interface PortalsDocument {
  /** Portal port by ServicePortName (`<namespace>/<name>:<port name>`). */
  portals: Record<string, number>;
}

function parsePortals(text: string): PortalsDocument {
  const doc = JSON.parse(text) as PortalsDocument;
  const ok = typeof doc === 'object' && doc !== null && typeof doc.portals === 'object' && doc.portals !== null;
  if (!ok || Object.values(doc.portals).some((p) => !Number.isInteger(p) || p <= 0 || p > 65535)) throw new Error('not a portals document');
  return doc;
}

/**
 * The portal ports the data plane picked, kept on disk (owner-only, durably) so that a Service
 * port gets the same portal after an edge restart: the env vars of containers created before
 * it name that port, and they are never updated.
 */
export class PortalsFile {
  private constructor(
    private readonly file: JsonStateFile<PortalsDocument>,
    private readonly ports: Map<string, number>,
  ) {}

  static async open(dataDir: string, options: { logger: Logger; spaced?: SpacedWrites }): Promise<PortalsFile> {
    const file = new JsonStateFile<PortalsDocument>(join(dataDir, PORTALS_FILE), {
      parse: parsePortals,
      logger: options.logger,
      otherwise: 'Service ports get new portals',
      spaced: options.spaced,
    });
    const doc = await file.read();
    return new PortalsFile(file, new Map(Object.entries(doc?.portals ?? {})));
  }

  /** The port remembered for this Service port; 0 (the kernel picks) for a new one. */
  portOf(key: string): number {
    return this.ports.get(key) ?? 0;
  }

  /** Remembers (or forgets, with undefined) a Service port's portal; resolves once on disk. */
  set(key: string, port: number | undefined): Promise<void> {
    if (port === undefined ? !this.ports.has(key) : this.ports.get(key) === port) return Promise.resolve();
    if (port === undefined) this.ports.delete(key);
    else this.ports.set(key, port);
    return this.file.write({ portals: Object.fromEntries([...this.ports].sort(([a], [b]) => a.localeCompare(b))) });
  }
}
