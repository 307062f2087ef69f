import { render } from 'preact';
import { registerSW } from 'virtual:pwa-register';
import { App } from './app';
import { keepOfflineCopy } from './offline';
import './styles.css';
import { applyTheme } from './theme';

applyTheme();
keepOfflineCopy();
// The service worker (vite.config.ts) keeps the app itself for offline use; a new build takes over at once.
registerSW({ immediate: true });
render(<App />, document.getElementById('app')!);
