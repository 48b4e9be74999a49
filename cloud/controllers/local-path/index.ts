/** The local-path provisioner (rancher.io/local-path) on the cloud: node-local hostPath volumes for claims, deleted when released. */
export { localPathProvisioner } from './controller.js';
export { basePathFor, DEFAULT_BASE_PATH, localPathVolume, needsVolume, shouldDelete, volumeNameFor } from './plan.js';
