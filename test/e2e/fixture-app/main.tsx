/**
 * The fixture page: the real App over the fixture service (?rows=N, default 50,000; ?active=N
 * makes the N newest rows uploading). With ?feed=<ws URL> (the UI benchmark, test/bench/ui.ts)
 * the fixture's own progress feed is off and events come instead through the renderer's real
 * WebSocket bridge from that URL, as the headless door sends them (the fixture service's own
 * events, e.g. settings, still arrive too); calls still go to the fixture service.
 */
import { createRoot } from 'react-dom/client';
import type { Bridge } from '../../../src-renderer/bridge/bridge';
import { webSocketBridge } from '../../../src-renderer/bridge/websocket';
import { App } from '../../../src-renderer/App';
import { createAppStore } from '../../../src-renderer/store/store';
import '../../../src-renderer/styles.css';
import { fixtureService } from './service';

const params = new URLSearchParams(location.search);
const service = fixtureService(Number(params.get('rows') ?? 50_000), Number(params.get('active') ?? 0));
const feedUrl = params.get('feed');

function withFeed(calls: Bridge, url: string): Bridge {
  service.stop();
  const feed = webSocketBridge({ url });
  return {
    ...calls,
    on: (name, listener) => {
      const offs = [calls.on(name, listener), feed.on(name, listener)];
      return () => offs.forEach((off) => off());
    },
  };
}

const app = createAppStore(feedUrl ? withFeed(service, feedUrl) : service);
void app.start();
createRoot(document.getElementById('root')!).render(<App app={app} />);
