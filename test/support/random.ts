export { mulberry32 } from '../../shared/seeded-random.js';
