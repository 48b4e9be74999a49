/** The namespace controller: empties a namespace being deleted, then finalizes it. */
export { namespaceController, type NamespaceControllerOptions } from './controller.js';
export { planNamespace, isEventKind, type NamespaceAction, type NamespaceContent } from './plan.js';
