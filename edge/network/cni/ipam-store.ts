/** What host-local keeps: which container each address is reserved for, and the last address reserved. */
export interface IpamState {
  /** Container id by address. */
  reserved: Map<string, string>;
  lastReserved?: string;
}

/**
 * Where a host-local plugin keeps its reservations: files in the edge's data dir (real edges),
 * or memory (hollow fleets, sim-only tests). The plugin serialises calls and keeps the state
 * loaded; a store only makes each change last as long as it does.
 */
export interface IpamStore {
  load(): Promise<IpamState>;
  reserve(ip: string, containerId: string): Promise<void>;
  /** Where the next round-robin search starts after. */
  setLastReserved(ip: string): Promise<void>;
  release(ip: string): Promise<void>;
}

/** Reservations in memory: gone with the process (the plugin's GC records the live ones again). */
export function memoryIpamStore(): IpamStore {
  return {
    load: async () => ({ reserved: new Map() }),
    reserve: async () => {},
    setLastReserved: async () => {},
    release: async () => {},
  };
}
