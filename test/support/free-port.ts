export { freePort } from '../../sim/free-port.js';
