import type { User } from '@tasklane/schemas';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/** The signed-in user, provided by the session gate in app.tsx to every page below it. */
export const CurrentUser = createContext<User | null>(null);

/** The signed-in user; pages below the session gate always have one. */
export const useCurrentUser = () => useContext(CurrentUser)!;
