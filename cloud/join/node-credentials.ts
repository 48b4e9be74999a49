import { Subject, type Observable, type Subscription } from 'rxjs';
import type { Secret } from '../../shared/config-types.js';
import type { Logger } from '../../shared/log.js';
import type { Node } from '../../shared/types.js';
import type { ApiClient } from '../client/client.js';
import type { CacheEvent } from '../informer/informer.js';
import type { Informers } from '../informer/shared-informers.js';
import { ignoreGone } from '../controllers/garbage-collector/apply.js';
import { verifyPassword } from '../hub/password-hash.js';
import { bootstrapTokenOf, JOIN_NAMESPACE, nodeCredentialName, nodeCredentialOf, type NodeCredential } from './secrets.js';

export interface NodeCredentialsDeps {
  api: ApiClient;
  informers: Informers;
  logger: Logger;
}

/**
 * The nodes' broker credentials as the broker needs them: looked up by node name from a watch
 * of kube-system's Secrets, so a credential issued a moment ago admits its node and a deleted
 * one is gone. It also revokes: a credential goes with its Node and with its join token.
 */
export class NodeCredentials {
  private readonly byNode = new Map<string, NodeCredential>();
  private readonly revocations = new Subject<string>();
  private readonly subscriptions: Subscription[] = [];
  private markSynced!: () => void;
  private readonly synced = new Promise<void>((resolve) => (this.markSynced = resolve));

  constructor(private readonly deps: NodeCredentialsDeps) {}

  /** Node names whose credential was deleted or replaced: their connections must close. */
  get revoked$(): Observable<string> {
    return this.revocations.asObservable();
  }

  start(): void {
    const { informers } = this.deps;
    this.subscriptions.push(
      informers.of<Secret>({ resource: 'secrets', namespace: JOIN_NAMESPACE }).subscribe((e) => this.onSecret(e)),
      informers.of<Node>({ resource: 'nodes' }).subscribe((e) => {
        if (e.type === 'DELETED') void this.revokeNode(e.object.metadata.name!);
      }),
    );
  }

  /** Whether `password` is node `node`'s credential (after the first list of Secrets is in). */
  async verify(node: string, password: string): Promise<boolean> {
    await this.synced;
    const credential = this.byNode.get(node);
    return credential !== undefined && verifyPassword(password, credential.passwordHash);
  }

  close(): void {
    for (const s of this.subscriptions) s.unsubscribe();
    this.revocations.complete();
  }

  private onSecret(event: CacheEvent<Secret>): void {
    if (event.type === 'SYNCED') return this.markSynced();
    const credential = nodeCredentialOf(event.object);
    if (event.type === 'DELETED') {
      if (credential && this.byNode.get(credential.node)?.passwordHash === credential.passwordHash) this.forget(credential.node);
      const token = bootstrapTokenOf(event.object);
      if (token) void this.revokeToken(token.id);
      return;
    }
    if (!credential) return;
    const before = this.byNode.get(credential.node);
    this.byNode.set(credential.node, credential);
    if (before && before.passwordHash !== credential.passwordHash) this.revocations.next(credential.node);
  }

  private forget(node: string): void {
    this.byNode.delete(node);
    this.deps.logger.info('node credential revoked', { node });
    this.revocations.next(node);
  }

  /** A deleted Node takes its credential along: to come back, the edge joins again with a new token. */
  private async revokeNode(node: string): Promise<void> {
    if (!this.byNode.has(node)) return;
    await this.deleteQuietly({ resource: 'secrets', namespace: JOIN_NAMESPACE, name: nodeCredentialName(node) });
  }

  /** A revoked join token takes along every credential obtained with it. */
  private async revokeToken(id: string): Promise<void> {
    for (const c of [...this.byNode.values()].filter((c) => c.tokenId === id)) {
      await this.deleteQuietly({ resource: 'secrets', namespace: JOIN_NAMESPACE, name: nodeCredentialName(c.node) });
    }
  }

  private async deleteQuietly(ref: { resource: string; namespace: string; name: string }): Promise<void> {
    await ignoreGone(this.deps.api.delete(ref)).catch((err: Error) => this.deps.logger.warn('cannot revoke a node credential', { name: ref.name, error: err.message }));
  }
}
