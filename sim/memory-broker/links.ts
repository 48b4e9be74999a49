import { Wire } from './wire.js';

/**
 * The cable of every client (by client id): up unless cut. Knows the connections over each
 * one, so that heal and reset reach them.
 */
export class Links {
  private readonly cutNames = new Set<string>();
  private readonly wires = new Map<string, Set<Wire>>();

  isCut(name: string): boolean {
    return this.cutNames.has(name);
  }

  /** A new connection over `name`'s cable; it reaches no broker while the cable is cut or when `refused`. */
  open(name: string, refused: boolean): Wire {
    const cut = this.isCut(name);
    const wire = new Wire(name, () => !this.isCut(name), !cut && !refused, (gone) => this.forget(gone));
    let set = this.wires.get(name);
    if (!set) this.wires.set(name, (set = new Set()));
    set.add(wire);
    if (refused && !cut) wire.reset(); // nothing listens: the client's connection is refused at once
    return wire;
  }

  cut(name: string): void {
    this.cutNames.add(name);
  }

  heal(name: string): void {
    if (!this.cutNames.delete(name)) return;
    for (const wire of [...(this.wires.get(name) ?? [])]) wire.heal();
  }

  reset(name: string): void {
    for (const wire of [...(this.wires.get(name) ?? [])]) wire.reset();
  }

  /** Connections over `name`'s cable that are not gone at both ends. */
  connections(name: string): number {
    return this.wires.get(name)?.size ?? 0;
  }

  private forget(wire: Wire): void {
    const set = this.wires.get(wire.name);
    set?.delete(wire);
    if (set?.size === 0) this.wires.delete(wire.name);
  }
}
