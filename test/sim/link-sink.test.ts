import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { startLinkProxy, type LinkProxy } from '../../sim/link-proxy.js';
import { startLinkSink, type LinkSink } from '../../sim/link-sink.js';
import { waitFor } from '../support/wait.js';
import { dial, startFarEnd, type FarEnd, type Watched } from './tcp-fixtures.js';

describe("a link's sink listener (loopback sockets, fake clock)", () => {
  let far: FarEnd;
  let sink: LinkSink;
  let proxy: LinkProxy;
  const clients: Watched[] = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) c.socket.destroy();
    await proxy?.close();
    await sink?.close();
    await far?.close();
  });

  it('forwards to the sink through the same link: counted with the link, held while it is cut', async () => {
    far = await startFarEnd();
    sink = await startLinkSink();
    proxy = await startLinkProxy({ name: 'edge-1', target: { host: '127.0.0.1', port: far.port }, sink, clock: new FakeClock(0), logger: silentLogger });
    expect(proxy.sinkPort).toBeGreaterThan(0);
    const upload = await dial(proxy.sinkPort!);
    clients.push(upload);
    upload.socket.write('x'.repeat(1000));
    await waitFor(() => sink.bytes === 1000, 'the sink to count the upload');
    expect(far.accepted).toEqual([]); // not the broker's side
    expect(proxy.state()).toMatchObject({ bytesUp: 1000, connections: 1 });
    proxy.cut();
    upload.socket.write('y'.repeat(500));
    await waitFor(() => proxy.state().bytesUp === 1000 && sink.bytes === 1000, 'nothing through while cut');
    proxy.heal();
    await waitFor(() => sink.bytes === 1500, 'the held bytes after the heal');
  });

  it('a proxy without a sink has no sink listener', async () => {
    far = await startFarEnd();
    proxy = await startLinkProxy({ name: 'edge-1', target: { host: '127.0.0.1', port: far.port }, clock: new FakeClock(0), logger: silentLogger });
    expect(proxy.sinkPort).toBeUndefined();
  });
});
