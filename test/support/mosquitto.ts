export { MOSQUITTO, startMosquitto, type MosquittoProcess } from '../../sim/mosquitto.js';
