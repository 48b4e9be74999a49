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
  /**
   * A read-only kind computed in memory instead of kept in the store (componentstatuses,
   * metrics.k8s.io): nothing to watch or collect. Given the namespace and name asked for, it
   * may answer with just those, or throw (NotFound).
   */
  source?: (scope: ComputedScope) => KubeObject[] | Promise<KubeObject[]>;
}

/** What a get or list of a computed kind asks for. */
export interface ComputedScope {
  namespace?: string;
  name?: string;
}
