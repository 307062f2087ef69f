import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { DomainError } from '../../platform/errors';

/**
 * IPv4-compatible IPv6 addresses (`::127.0.0.1`), deprecated by RFC 4291: ipaddr.js calls them
 * unicast, yet a stack may deliver them to the IPv4 address they embed. No public host is reached
 * through one, so all are refused.
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** Only ordinary public unicast addresses; ipaddr.js names every special range (private, loopback, linkLocal, …). */
function isPublic(address: string): boolean {
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE)) return false;
  return parsed.range() === 'unicast';
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

export class RefusedTargetError extends Error {}

/**
 * Refuses a webhook target on a private, loopback, link-local or other special address, against
 * server-side request forgery: every address the name resolves to must be public.
 */
export async function checkTarget(rawUrl: string, allowPrivate: boolean): Promise<void> {
  const url = new URL(rawUrl);
  if (url.username || url.password) throw refused('the URL must not carry credentials');
  if (allowPrivate) return;
  const host = hostOf(url);
  let addresses: string[];
  if (ipaddr.isValid(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      throw refused(`the host ${host} does not resolve`);
    }
  }
  const blocked = addresses.find((address) => !isPublic(address));
  if (blocked) throw refused(`${host} resolves to ${blocked}, a private, loopback or link-local address`);
}

const refused = (why: string) => new DomainError('BAD_REQUEST', `Webhook target refused: ${why}`, 'WEBHOOK_TARGET_REFUSED');

/**
 * A DNS lookup for outgoing deliveries that fails on non-public addresses, so the check holds at
 * connect time too (a name that resolved to a public address at creation may not any more).
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const blocked = addresses.find((entry) => !isPublic(entry.address));
    if (blocked) return callback(new RefusedTargetError(`${hostname} resolves to ${blocked.address}, a non-public address`), '', 0);
    if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/** Same rule for a URL whose host is an IP literal (no lookup happens for those). */
export function literalHostRefused(url: URL): boolean {
  const host = hostOf(url);
  return ipaddr.isValid(host) && !isPublic(host);
}
