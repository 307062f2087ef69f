import { render } from 'preact';
import { registerSW } from 'virtual:pwa-register';
import { App } from './app';
import { formatDay } from './format';
import { setLocaleForThisPage, startI18n } from './i18n';
import { keepOfflineCopy } from './offline';
import './styles.css';
import { applyTheme } from './theme';

applyTheme();
keepOfflineCopy();
// The service worker (vite.config.ts) keeps the app itself for offline use; a new build takes over at once.
registerSW({ immediate: true });
// The language's catalogue is read before the first render (English ships with the app; another is one
// small chunk). Should that chunk not come (offline before the service worker kept it), the app speaks English.
void startI18n()
  .catch((error: unknown) => {
    console.error('Could not load the language, speaking English', error);
    return setLocaleForThisPage('en');
  })
  .finally(() => {
    render(<App />, document.getElementById('app')!);
    // The browser reads its date data on the first date format made: 50–100 ms on a slow phone's CPU.
    // Made now, in a task of its own while the app waits for its first answers, that is not inside
    // the board's first render (where it made one long task longer: Lighthouse's blocking time).
    setTimeout(() => formatDay(new Date().toISOString()));
  });
