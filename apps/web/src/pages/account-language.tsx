import type { Locale } from '@tasklane/schemas';
import { useAction } from '../hooks';
import { currentLocale, LOCALE_NAMES, LOCALES, setLocale, storedLocale, t, useLocale } from '../i18n';
import { client } from '../session';
import { announce, ErrorNote } from '../ui';

const BROWSER = 'browser';

/**
 * The language of the app and of your emails: kept in the account (PATCH /auth/me `locale`), so
 * every browser you sign in on and the server's emails speak it; "the browser's" clears it.
 */
export function LanguageSetting() {
  useLocale();
  const { busy, error, run } = useAction();
  const chosen = storedLocale() ?? BROWSER;
  const choose = async (value: string) => {
    const locale = value === BROWSER ? null : (value as Locale);
    // Saved in the account, then spoken here; either failing is shown under the menu.
    const saved = await run(async () => {
      const me = await client.auth.updateMe({ locale });
      await setLocale(me.locale);
      return me;
    });
    if (!saved) return;
    announce(t('accountLanguage.saved', { language: LOCALE_NAMES[currentLocale()] }));
  };
  return (
    <section class="stack" aria-labelledby="language-title">
      <h2 id="language-title">{t('accountLanguage.title')}</h2>
      <p class="muted">{t('accountLanguage.intro')}</p>
      <ErrorNote error={error} />
      <label class="stack">
        {t('accountLanguage.label')}
        <select value={chosen} disabled={busy} onChange={(event) => void choose(event.currentTarget.value)}>
          <option value={BROWSER}>{t('accountLanguage.browser')}</option>
          {LOCALES.map((locale) => (
            <option key={locale} value={locale} lang={locale}>
              {LOCALE_NAMES[locale]}
            </option>
          ))}
        </select>
      </label>
    </section>
  );
}
