import { isLocale, type Locale, LOCALES } from '@tasklane/schemas';
import i18next from 'i18next';
import de from './locales/de';
import en from './locales/en';
import es from './locales/es';
import fr from './locales/fr';
import ja from './locales/ja';

/** The emails' catalogues: one per language of the web app (issue 39), English the fallback of a missing key. */
export const MAIL_CATALOGUES: Record<Locale, object> = { en, de, fr, es, ja };

// An instance of our own: the emails share no language state with anything else in the process.
const mails = i18next.createInstance();
void mails.init({
  resources: Object.fromEntries(LOCALES.map((locale) => [locale, { translation: MAIL_CATALOGUES[locale] }])),
  lng: 'en',
  fallbackLng: 'en',
  supportedLngs: [...LOCALES],
  // The catalogues are in memory: ready at once, no promise to wait for.
  initAsync: false,
  // Values are escaped by the HTML templates themselves (escapeHtml) and must stay raw in the text part.
  interpolation: { escapeValue: false },
});

/** A language the emails speak, from a user's saved choice (null, or one no longer offered: English). */
export const mailLocale = (locale: string | null | undefined): Locale => (isLocale(locale) ? locale : 'en');

/** An email's translate function: a key of the catalogues and the values it names (`count` picks the plural). */
export type MailT = (key: string, values?: Record<string, unknown>) => string;

/**
 * The translate function of one email's language. Typed as plain strings: the web app's typed keys
 * (its `CustomTypeOptions`) are the web catalogue's, and a program that holds both must not read
 * these keys against them. Every key is checked by the emails' tests in each language instead.
 */
export const mailT = (locale: string | null | undefined): MailT => mails.getFixedT(mailLocale(locale)) as unknown as MailT;

/** A date-time in an email: the language's way of writing it, in UTC (the server knows no reader's time zone). */
export const mailDateTime = (locale: string | null | undefined, date: Date) =>
  `${new Intl.DateTimeFormat(mailLocale(locale), { dateStyle: 'full', timeStyle: 'short', timeZone: 'UTC' }).format(date)} UTC`;

/** A day (`YYYY-MM-DD`, or a date's UTC day) in an email, the language's way. */
export const mailDay = (locale: string | null | undefined, day: string | Date) =>
  new Intl.DateTimeFormat(mailLocale(locale), { dateStyle: 'long', timeZone: 'UTC' }).format(typeof day === 'string' ? new Date(`${day}T00:00:00Z`) : day);
