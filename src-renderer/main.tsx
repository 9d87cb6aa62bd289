/** The renderer's entry: picks the bridge for where it runs, creates the store, renders the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { defaultBridge } from './bridge';
import { createAppStore } from './store/store';
import { hasUnsent } from './store/vca-decisions';
import { PRELOAD_GLOBAL } from '../src-main/shared/wire';
import './styles.css';

const app = createAppStore(defaultBridge(window));
void app.start();
// In a browser tab (the headless door), review decisions still waiting to be sent or answered
// (the service slow or unreachable) live only in this page: a reload or a closed tab would lose
// them without a word, so the browser asks first. (The desktop window is not asked: there a
// page that refuses to unload would silently keep the window from closing.)
if (!(PRELOAD_GLOBAL in window))
  window.addEventListener('beforeunload', (e) => {
    if (hasUnsent(app.store.getState().vca.decisions)) e.preventDefault();
  });
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App app={app} />
  </StrictMode>,
);
