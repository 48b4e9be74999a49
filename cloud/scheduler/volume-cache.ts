import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../shared/storage-types.js';
import type { KubeObject } from '../../shared/types.js';
import { ObjectCache } from '../controllers/object-cache.js';
import type { CacheEvent } from '../informer/informer.js';
import type { VolumeLookup } from './volume-binding.js';

/** The claims, volumes and classes as the scheduler's watches show them: what VolumeBinding reads. */
export class VolumeCache implements VolumeLookup {
  private readonly claims = new ObjectCache<PersistentVolumeClaim>();
  private readonly pvs = new ObjectCache<PersistentVolume>();
  private readonly classes = new ObjectCache<StorageClass>();

  readonly onClaim = (event: CacheEvent<PersistentVolumeClaim>): boolean => changed(this.claims, event);
  readonly onVolume = (event: CacheEvent<PersistentVolume>): boolean => changed(this.pvs, event);
  readonly onClass = (event: CacheEvent<StorageClass>): boolean => changed(this.classes, event);

  claim(namespace: string, name: string): PersistentVolumeClaim | undefined {
    return this.claims.get(namespace, name);
  }

  volume(name: string): PersistentVolume | undefined {
    return this.pvs.get(undefined, name);
  }

  storageClass(name: string): StorageClass | undefined {
    return this.classes.get(undefined, name);
  }

  volumes(): Iterable<PersistentVolume> {
    return this.pvs.all();
  }
}

/** Applies the event; true when it changed an object (not a SYNCED mark). */
function changed<T extends KubeObject>(cache: ObjectCache<T>, event: CacheEvent<T>): boolean {
  cache.apply(event);
  return event.type !== 'SYNCED';
}
