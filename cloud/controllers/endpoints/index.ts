export { endpointsController } from './controller.js';
export { planEndpoints, managesEndpoints, selects, HEADLESS_LABEL, type EndpointsAction, type EndpointsKey } from './plan.js';
export { endpointSubsets, findPort, belongsInEndpoints, isPodReady } from './subsets.js';
export { servicesToUpdate } from './memberships.js';
