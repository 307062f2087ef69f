import i18next from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { useEffect, useState } from 'preact/hooks';
import { isLocale, type Locale, LOCALES } from '@tasklane/schemas/constants';
import en from './locales/en';

/** The languages the app speaks: the API's and the emails' (`PATCH /auth/me` takes the same). */
export { isLocale, type Locale, LOCALES };
/** Each language's own name, as its speakers write it (the language menu shows these). */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', de: 'Deutsch', fr: 'Français', es: 'Español', ja: '日本語' };

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en };
    // A key is a path of the catalogue (`board.addTask`): a key the English catalogue lacks fails the typecheck.
    keySeparator: '.';
  }
}

/** English ships with the app; each other language is a chunk of its own, read when chosen. */
const catalogues: Record<Exclude<Locale, 'en'>, () => Promise<{ default: unknown }>> = {
  de: () => import('./locales/de'),
  fr: () => import('./locales/fr'),
  es: () => import('./locales/es'),
  ja: () => import('./locales/ja'),
};

/** Where a language chosen in this browser (or the account's, once signed in) is kept for the next start. */
const LOCALE_KEY = 'tasklane.locale';

/** The app's language closest to the browser's (`de-AT` → `de`, `pt` → English). */
function bestLocale(codes: string | readonly string[]): Locale {
  const { languageUtils } = i18next.services;
  const best = languageUtils.getBestMatchFromCodes([codes].flat());
  const language = best ? languageUtils.getLanguagePartFromCode(best) : undefined;
  return isLocale(language) ? language : 'en';
}

async function load(locale: Locale) {
  if (locale === 'en' || i18next.hasResourceBundle(locale, 'translation')) return;
  const { default: catalogue } = await catalogues[locale]();
  i18next.addResourceBundle(locale, 'translation', catalogue);
}

/**
 * The language: the one chosen (in the account, kept in this browser), else the browser's first
 * that the app speaks (`navigator.languages`, `de-AT` as `de`), else English. Before the first render.
 */
export async function startI18n() {
  await i18next.use(LanguageDetector).init({
    resources: { en: { translation: en } },
    supportedLngs: [...LOCALES],
    nonExplicitSupportedLngs: true,
    load: 'languageOnly',
    fallbackLng: 'en',
    // Preact escapes what it renders; the emails are not made here.
    interpolation: { escapeValue: false },
    detection: { order: ['localStorage', 'navigator'], lookupLocalStorage: LOCALE_KEY, caches: [] },
    // A key no catalogue has, English included, is a bug: say so where the tests and developers look.
    saveMissing: true,
    missingKeyHandler: (languages, _namespace, key) => console.error(`Missing translation: ${key} (${languages.join(', ')})`),
    returnNull: false,
  });
  // `language` is what was detected ('de-AT'); the catalogue's language is its best match ('de').
  const detected = bestLocale(i18next.language);
  await load(detected);
  // Always: init resolved the language before its catalogue was here (to English), and the app reads the resolved one.
  await i18next.changeLanguage(detected);
  document.documentElement.lang = detected;
}

/** The language chosen for this browser or account, if any (else the browser's is spoken). */
export function storedLocale(): Locale | undefined {
  const value = window.localStorage.getItem(LOCALE_KEY);
  return isLocale(value) ? value : undefined;
}

/** Follows the signed-in account's language (from GET /auth/me) when it differs from this browser's. */
export async function followAccountLocale(locale: unknown) {
  const wanted = isLocale(locale) ? locale : null;
  if (wanted !== (storedLocale() ?? null)) await setLocale(wanted);
}

/** The language the app speaks now. */
export function currentLocale(): Locale {
  const language = i18next.resolvedLanguage ?? i18next.language;
  return isLocale(language) ? language : 'en';
}

/**
 * Speaks `locale`, or the browser's language for `null` (the account's "browser default"), and
 * keeps the choice in this browser so the next start speaks it before the account is read.
 */
export async function setLocale(locale: Locale | null) {
  // Without a choice: the browser's language, as the start detects it when nothing is kept.
  const next = locale ?? bestLocale(navigator.languages);
  // Its catalogue first: should it not come, nothing changes (neither the kept choice nor the page).
  await load(next);
  if (locale) window.localStorage.setItem(LOCALE_KEY, locale);
  else window.localStorage.removeItem(LOCALE_KEY);
  await setLocaleForThisPage(next);
}

/** Speaks `locale` on this page, keeping no choice (English when a language's catalogue could not be read). */
export async function setLocaleForThisPage(locale: Locale) {
  await i18next.changeLanguage(locale);
  document.documentElement.lang = locale;
}

/** The language now; a component that calls it renders again when it changes. */
export function useLocale(): Locale {
  const [locale, setCurrent] = useState(currentLocale);
  useEffect(() => {
    const follow = () => setCurrent(currentLocale());
    i18next.on('languageChanged', follow);
    return () => i18next.off('languageChanged', follow);
  }, []);
  return locale;
}

/*
 * The messages already made in the language now. A board re-renders its cards many times as its
 * reads arrive, and i18next makes a message anew each time (resolving the key through the
 * language's fallbacks, plural rules, interpolation): on Lighthouse's 4×-slowed CPU that was 70 ms
 * of the board's first second. A message is the same for the same key and values, so each is made
 * once per language (the cache is emptied when the language changes, and when it grows large).
 */
const made = new Map<string, string>();
const MADE_MAX = 5_000;
i18next.on('languageChanged', () => made.clear());

/** A message of the language now: `t('board.title')`, `t('board.count', { count })` (keys typed by the English catalogue). */
export const t = ((key: string, values?: Record<string, unknown>) => {
  const id = values === undefined ? key : `${key}\u0000${JSON.stringify(values)}`;
  let message = made.get(id);
  if (message === undefined) {
    message = String(i18next.t(key as never, values as never));
    if (made.size >= MADE_MAX) made.clear();
    made.set(id, message);
  }
  return message;
}) as unknown as typeof i18next.t;

/**
 * Where dates and numbers are written: the browser's own region of the language spoken (`en-GB`
 * writes "16 Nov 2026", `de-CH` "1’000"), else the language's default.
 */
let formatting: { language: Locale; locale: string } | undefined;
function formattingLocale(): string {
  const language = currentLocale();
  // Read once per language: `navigator.languages` is a fresh array from the browser at each read.
  if (formatting?.language !== language) {
    formatting = { language, locale: navigator.languages.find((tag) => tag.split('-')[0]!.toLowerCase() === language) ?? language };
  }
  return formatting.locale;
}

const formats = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();
/** A format of the language now, made once per language, kind and options. */
function cachedFormat<F extends Intl.DateTimeFormat | Intl.NumberFormat>(kind: string, options: object, make: (locale: string) => F): F {
  const locale = formattingLocale();
  const key = `${kind}${locale}${JSON.stringify(options)}`;
  let format = formats.get(key);
  if (!format) formats.set(key, (format = make(locale)));
  return format as F;
}
/** A date format of the language now. */
export const dateFormat = (options: Intl.DateTimeFormatOptions) => cachedFormat('d', options, (locale) => new Intl.DateTimeFormat(locale, options));
/** A number format of the language now. */
export const numberFormat = (options: Intl.NumberFormatOptions = {}) => cachedFormat('n', options, (locale) => new Intl.NumberFormat(locale, options));
