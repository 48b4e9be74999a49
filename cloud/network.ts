import { hostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import { splitBrokerUrls } from '../shared/broker-urls.js';

/** What the serving certificate covers whatever the cloud listens on. */
export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'];

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/**
 * What the serving certificate must cover: loopback, every address the cloud listens on,
 * and for a wildcard address (0.0.0.0, ::) every address of this machine and its host name.
 */
export function certificateHosts(bound: readonly string[]): string[] {
  const hosts = [...LOOPBACK_HOSTS];
  for (const host of bound) {
    if (!WILDCARDS.has(host)) hosts.push(host);
    else hosts.push(hostname(), ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address.replace(/%.*$/, ''))));
  }
  return [...new Set(hosts)];
}

/** 127.0.0.0/8, ::1, and IPv4 loopback written as IPv6 (::ffff:127.x.y.z). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return (isIP(v4) === 4 && v4.startsWith('127.')) || address === '::1';
}

/** Whether listening on `host` keeps the cloud on this machine. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || isLoopbackAddress(host);
}

/**
 * The broker URL a joining edge should use: the cloud's own, with a loopback or wildcard host
 * replaced by the host the edge reached the API under (its Host header). Each of a list alike.
 */
export function brokerUrlAsSeenFrom(brokerUrl: string, hostHeader: string | undefined): string {
  return splitBrokerUrls(brokerUrl).map((one) => oneBrokerAsSeenFrom(one, hostHeader)).join(',');
}

function oneBrokerAsSeenFrom(brokerUrl: string, hostHeader: string | undefined): string {
  const url = new URL(brokerUrl);
  const own = url.hostname.replace(/^\[|\]$/g, '');
  if (!hostHeader || !(isLoopbackHost(own) || WILDCARDS.has(own))) return brokerUrl;
  url.hostname = new URL(`https://${hostHeader}`).hostname;
  return url.toString().replace(/\/$/, '');
}
