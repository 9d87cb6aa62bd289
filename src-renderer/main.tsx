/** The renderer's entry: picks the bridge for where it runs, creates the store, renders the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { defaultBridge } from './bridge';
import { createAppStore } from './store/store';
import './styles.css';

const app = createAppStore(defaultBridge(window));
void app.start();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App app={app} />
  </StrictMode>,
);
