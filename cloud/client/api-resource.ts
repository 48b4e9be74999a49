import type { KubeObject } from '../../shared/types.js';

/**
 * A kind as its clients see it (much as discovery's metav1.APIResource): where it is served and
 * whether it is kept in the store. The apiserver's row of its resource table (ResourceDef)
 * extends it with how the kind is served.
 */
export interface ApiResource {
  group: string;
  version: string;
  /** Plural, lower case: "pods". */
  resource: string;
  kind: string;
  namespaced: boolean;
  /** A read-only kind computed in memory instead of kept in the store (componentstatuses): nothing to watch or collect. */
  source?: () => KubeObject[];
}
