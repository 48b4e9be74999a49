import { KedgeError } from '../../shared/errors.js';
import type { UserInfo } from './authn.js';

/** What a request asks to do, in RBAC terms. */
export interface Attributes {
  verb: string;
  /** Absent for non-resource paths such as /api or /version. */
  resource?: string;
  subresource?: string;
  group?: string;
  namespace?: string;
  name?: string;
  path: string;
}

const readVerbs = new Set(['get', 'list', 'watch']);

/** Role-based rules for now: admin does everything, viewer reads, everyone else is refused. */
export function authorize(user: UserInfo, attrs: Attributes): void {
  if (user.role === 'admin') return;
  if (user.role === 'viewer' && readVerbs.has(attrs.verb)) return;
  throw forbidden(user, attrs);
}

function forbidden(user: UserInfo, attrs: Attributes): KedgeError {
  if (attrs.resource === undefined) {
    return new KedgeError('Forbidden', `forbidden: User "${user.name}" cannot ${attrs.verb} path "${attrs.path}"`);
  }
  const res = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const group = attrs.group ?? '';
  const scope = attrs.namespace ? ` in the namespace "${attrs.namespace}"` : ' at the cluster scope';
  const named = attrs.name ? `${attrs.resource} "${attrs.name}" is forbidden` : `${attrs.resource} is forbidden`;
  return new KedgeError('Forbidden', `${named}: User "${user.name}" cannot ${attrs.verb} resource "${res}" in API group "${group}"${scope}`, {
    details: attrs.name ? { name: attrs.name, group, kind: attrs.resource } : { group, kind: attrs.resource },
  });
}
