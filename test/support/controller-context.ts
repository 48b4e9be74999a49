import type { ControllerContext } from '../../cloud/controllers/controller.js';
import { SharedInformers } from '../../cloud/informer/shared-informers.js';

/** A controller context with shared informers over its own API client, as the controller-manager builds it. */
export function withInformers(ctx: Omit<ControllerContext, 'informers'>): ControllerContext {
  return { ...ctx, informers: new SharedInformers(ctx.api, { clock: ctx.clock, logger: ctx.logger }) };
}
