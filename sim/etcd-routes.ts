import type { ServerResponse } from 'node:http';
import { fail, replyLater } from './control-replies.js';
import { ETCD_MEMBER_ACTIONS, type EtcdControl, type EtcdMemberAction } from './demo-etcd.js';

/**
 *   GET /etcd                            → { items: EtcdMemberInfo[] }
 *   POST /etcd/<member>/stop|start|kill  → EtcdMemberActed, at once (a start within a few seconds)
 */
export function routeEtcd(etcd: EtcdControl | undefined, method: string, parts: string[], res: ServerResponse): void {
  if (!etcd) return fail(res, 404, 'NotFound', 'this demo runs on the embedded store, not etcd: start it with kedge demo --etcd N');
  const [, member, action] = parts;
  if (member === undefined) {
    if (method !== 'GET') return fail(res, 405, 'MethodNotAllowed', `${method} /etcd is not allowed; use GET`);
    return replyLater(res, etcd.list().then((items) => ({ items })));
  }
  if (parts.length !== 3 || !(ETCD_MEMBER_ACTIONS as readonly string[]).includes(action!)) {
    return fail(res, 404, 'NotFound', `no such path /${parts.join('/')} (POST /etcd/<member>/${ETCD_MEMBER_ACTIONS.join('|')})`);
  }
  if (method !== 'POST') return fail(res, 405, 'MethodNotAllowed', `${method} /etcd/${member}/${action} is not allowed; use POST`);
  replyLater(res, etcd.act(member, action as EtcdMemberAction));
}
