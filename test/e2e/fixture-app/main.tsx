/**
 * The fixture page: the real App over the fixture service (?rows=N, default 50,000; ?active=N
 * makes the N newest rows uploading). `window.fixtureFeed` is for the UI benchmark
 * (test/bench/ui.ts): `stop()` ends the fixture's own progress feed and `push(json)` delivers a
 * transfers batch sent as JSON text, parsed here as the headless door's bridge parses a message.
 */
import type { AppEvents } from '../../../src-main/shared/contract';
import { createRoot } from 'react-dom/client';
import { App } from '../../../src-renderer/App';
import { createAppStore } from '../../../src-renderer/store/store';
import '../../../src-renderer/styles.css';
import { fixtureService } from './service';

const params = new URLSearchParams(location.search);
const service = fixtureService(Number(params.get('rows') ?? 50_000), Number(params.get('active') ?? 0));
const app = createAppStore(service);
const push = (json: string) => service.push('transfers', JSON.parse(json) as AppEvents['transfers']);
Object.assign(window, { fixtureFeed: { stop: () => service.stop(), push } });
void app.start();
createRoot(document.getElementById('root')!).render(<App app={app} />);
