/** The persistentvolume controller: binds claims to volumes, keeps their phases, reclaims released volumes. */
export { persistentVolumeController } from './controller.js';
export { planClaim, type ClaimView } from './claim-plan.js';
export { planVolume } from './volume-plan.js';
export { findBestVolume, isBoundTo, volumeFitsNode, type MatchOptions } from './matching.js';
export type { VolumeAction } from './actions.js';
