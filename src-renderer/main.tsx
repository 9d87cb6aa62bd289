/** The renderer's entry: picks the bridge for where it runs, creates the store, renders the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { defaultBridge } from './bridge';
import { createAppStore } from './store/store';
import { guardLeaving } from './leave-guard';
import './styles.css';

const app = createAppStore(defaultBridge(window));
void app.start();
// Review decisions still waiting to be sent or answered live only in this page: leaving it asks
// first. In a browser tab the browser asks; in the desktop window the main process asks (with
// how many), and Quit waits for the answer (leave-guard.ts, src-main/electron/close-guard.ts).
guardLeaving(window, app.store);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App app={app} />
  </StrictMode>,
);
