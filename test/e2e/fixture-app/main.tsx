/** The fixture page: the real App over the fixture service (?rows=N, default 50,000). */
import { createRoot } from 'react-dom/client';
import { App } from '../../../src-renderer/App';
import { createAppStore } from '../../../src-renderer/store/store';
import '../../../src-renderer/styles.css';
import { fixtureService } from './service';

const rows = Number(new URLSearchParams(location.search).get('rows') ?? 50_000);
const app = createAppStore(fixtureService(rows));
void app.start();
createRoot(document.getElementById('root')!).render(<App app={app} />);
