export { endpointSliceController } from './controller.js';
export { planSlices, sliceLabels, MAX_ENDPOINTS_PER_SLICE, type SliceAction } from './plan.js';
export { endpointGroups, addressTypeOf, type EndpointGroup } from './desired.js';
