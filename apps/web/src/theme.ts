import { useEffect, useState } from 'preact/hooks';

export type Theme = 'light' | 'dark';
const THEME_KEY = 'tasklane.theme';
const systemDark = window.matchMedia('(prefers-color-scheme: dark)');

/** The theme chosen in this browser, else the system's (`prefers-color-scheme`). */
const storedTheme = (): Theme | undefined => {
  const value = window.localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : undefined;
};
export const currentTheme = (): Theme => storedTheme() ?? (systemDark.matches ? 'dark' : 'light');

/** Sets `data-theme` on the root element, which the style sheet's colour variables follow. */
export function applyTheme() {
  document.documentElement.dataset.theme = currentTheme();
}

/** The theme now, and a toggle that keeps the choice in this browser (`localStorage`). */
export function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState(currentTheme);
  useEffect(() => {
    const follow = () => {
      applyTheme();
      setTheme(currentTheme());
    };
    systemDark.addEventListener('change', follow);
    return () => systemDark.removeEventListener('change', follow);
  }, []);
  const toggle = () => {
    window.localStorage.setItem(THEME_KEY, theme === 'dark' ? 'light' : 'dark');
    applyTheme();
    setTheme(currentTheme());
  };
  return [theme, toggle];
}
