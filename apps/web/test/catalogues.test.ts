import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '@tasklane/schemas';
import { MAIL_CATALOGUES } from '../../server/src/platform/mail/i18n';
import { LOCALES as APP_LOCALES } from '../src/i18n';

/*
 * Every language has every message English has, in the plural forms its own rules use
 * (Intl.PluralRules: German one/other, French and Spanish one/many/other, Japanese other), and the
 * same {{values}} — and nothing English lacks. A key the code names but English lacks fails the
 * typecheck (src/i18n.ts types the keys); on the pages the Chromium test of each language opens
 * (i18n.test.ts), a message not found anywhere fails it too.
 */

const PLURAL = /_(zero|one|two|few|many|other)$/;

type Catalogue = { [key: string]: string | Catalogue };

function flatten(catalogue: Catalogue, prefix = ''): Map<string, string> {
  const flat = new Map<string, string>();
  for (const [key, value] of Object.entries(catalogue)) {
    if (typeof value === 'string') flat.set(`${prefix}${key}`, value);
    else for (const [inner, text] of flatten(value, `${prefix}${key}.`)) flat.set(inner, text);
  }
  return flat;
}

/** The keys a language must have: English's plain keys, and each plural of English in the language's own categories. */
function expectedKeys(english: Map<string, string>, locale: string): string[] {
  const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
  const keys = new Set<string>();
  for (const key of english.keys()) {
    const base = key.replace(PLURAL, '');
    if (base !== key && english.has(`${base}_other`)) for (const category of categories) keys.add(`${base}_${category}`);
    else keys.add(key);
  }
  return [...keys].sort();
}

/** The {{values}} a message names, `count` aside (a singular may spell it out: "une tâche"). */
const valuesOf = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((match) => match[1]).filter((name) => name !== 'count').sort();

function expectComplete(catalogues: Record<string, Catalogue>) {
  const english = flatten(catalogues.en!);
  expect(english.size).toBeGreaterThan(0);
  // English's singular says one thing: "1 task", never "1 tasks" (a copy of the plural left behind).
  for (const [key, text] of english) if (key.endsWith('_one')) expect(text, `en ${key} is singular`).not.toMatch(/\{\{count\}\} (\w+ )?\w+s\b/);
  for (const locale of LOCALES) {
    const messages = flatten(catalogues[locale]!);
    expect([...messages.keys()].sort(), `the keys of ${locale}`).toEqual(expectedKeys(english, locale));
    for (const [key, text] of messages) {
      const base = key.replace(PLURAL, '');
      const source = english.get(key) ?? english.get(`${base}_other`)!;
      expect(valuesOf(text), `the values of ${locale} ${key}`).toEqual(valuesOf(source));
      // A message left in English is a message not translated (names and symbols aside).
      if (locale !== 'en' && /[a-z]{3,} [a-z]{3,} [a-z]{3,}/i.test(source)) expect(text, `${locale} ${key} is translated`).not.toBe(source);
    }
  }
}

describe('message catalogues', () => {
  it('the app, the API (PATCH /auth/me locale) and the emails offer the same languages', () => {
    expect([...APP_LOCALES]).toEqual([...LOCALES]);
    expect(Object.keys(MAIL_CATALOGUES)).toEqual([...LOCALES]);
    const root = fileURLToPath(new URL('../src/locales/', import.meta.url));
    expect(readdirSync(root).sort()).toEqual([...LOCALES].sort());
  });

  it('the web app: every language complete, plurals by its own rules, the same values', () => {
    const root = fileURLToPath(new URL('../src/locales/', import.meta.url));
    const catalogues: Record<string, Catalogue> = {};
    for (const locale of LOCALES) {
      const files = readdirSync(`${root}${locale}`).filter((file) => file.endsWith('.json'));
      expect(files.sort(), `the files of ${locale}`).toEqual(readdirSync(`${root}en`).filter((file) => file.endsWith('.json')).sort());
      catalogues[locale] = Object.fromEntries(files.map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(`${root}${locale}/${file}`, 'utf8')) as Catalogue]));
    }
    expectComplete(catalogues);
  });

  it('the emails: every language complete, plurals by its own rules, the same values', () => {
    expectComplete(MAIL_CATALOGUES as unknown as Record<string, Catalogue>);
  });
});
