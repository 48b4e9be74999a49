/** The brokers of a `URL[,URL…]` list, in order. */
export function splitBrokerUrls(list: string): string[] {
  const urls = list.split(',').map((url) => url.trim()).filter((url) => url !== '');
  return urls.length > 0 ? urls : [list];
}

/** A `--broker URL[,URL…]` list, each an mqtt:// or mqtts:// URL; throws naming the one that is not. */
export function brokerUrls(list: string): string[] {
  const urls = list.split(',').map((url) => url.trim()).filter((url) => url !== '');
  if (urls.length === 0) throw new Error('no broker URL given');
  for (const url of urls) {
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch {
      throw new Error(`"${url}" is not a URL (e.g. mqtt://127.0.0.1:1883)`);
    }
    if (protocol !== 'mqtt:' && protocol !== 'mqtts:') throw new Error(`"${url}" is not an mqtt:// or mqtts:// URL`);
  }
  return urls;
}
