import type { Project, SearchHit, Task } from '@tasklane/schemas';
import { useLocation } from 'preact-iso';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { keys, loadProjects } from './data';
import { queryClient, useQuery } from './hooks';
import { t, useLocale } from './i18n';
import { client } from './session';
import { shortcutList, typingIn } from './shortcuts';
import { CLOSE_GLYPH } from './ui';

export interface Command {
  id: string;
  label: string;
  /** Which list it is of (shown in words of the language: `palette.groups`). */
  group: 'Actions' | 'Projects' | 'Tasks' | 'Search';
  /** The server's excerpt of a search hit (HTML: escaped text, matches in `<mark>`). */
  snippet?: string;
  run: () => void;
}

/** How long typing pauses before the palette asks the server's search. */
const SEARCH_DELAY_MS = 250;
const SEARCH_LIMIT = 20;

/**
 * The server's hits for what is typed, asked once typing pauses; an answer to an older query is
 * dropped, so the list never shows hits for words no longer there.
 */
function useSearchHits(query: string): SearchHit[] {
  const [hits, setHits] = useState<SearchHit[]>([]);
  useEffect(() => {
    const q = query.trim();
    if (!q) {
      setHits([]);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      client.search.query({ q, limit: SEARCH_LIMIT }).then(
        (page) => current && setHits(page.items),
        // A failed search leaves the palette's own matches; there is nothing to retry by hand.
        () => current && setHits([]),
      );
    }, SEARCH_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [query]);
  return hits;
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&#39;': "'" };

/**
 * A hit's excerpt as text with its matches in `<mark>`: read from the server's HTML by its two
 * markers and five entities, so nothing a user wrote ever becomes markup here.
 */
function Snippet({ html }: { html: string }) {
  const parts = html.split(/(<mark>[^<]*<\/mark>)/);
  const text = (part: string) => part.replace(/&(lt|gt|amp|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);
  return (
    <span class="muted small snippet">
      {parts.map((part, index) => (part.startsWith('<mark>') ? <mark key={index}>{text(part.slice(6, -7))}</mark> : text(part)))}
    </span>
  );
}

/** The app-wide keys: Ctrl/⌘ K opens the palette, `?` the shortcut list. */
export function useGlobalKeys(open: (which: 'palette' | 'help') => void) {
  const latest = useRef(open);
  latest.current = open;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        latest.current('palette');
      } else if (event.key === '?' && !event.ctrlKey && !event.metaKey && !typingIn(event.target)) {
        event.preventDefault();
        latest.current('help');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/** A modal `<dialog>` opened on mount; closing it (Esc, a choice) calls `onClose`. */
function useModal(onClose: () => void) {
  const dialog = useRef<HTMLDialogElement>(null);
  const returnTo = useRef(document.activeElement as HTMLElement | null);
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);
  const close = () => {
    onClose();
    // Focus goes back where it was, unless the choice moved it (a route change focuses the page).
    requestAnimationFrame(() => {
      if (!document.activeElement || document.activeElement === document.body) returnTo.current?.focus();
    });
  };
  return { dialog, close };
}

/** Ctrl/⌘ K: type to find a project, a task (of the boards seen in this tab) or an action; Enter runs it. */
export function CommandPalette({ actions, onClose }: { actions: Command[]; onClose: () => void }) {
  const { route } = useLocation();
  const { dialog, close } = useModal(onClose);
  const projects = useQuery(keys.projects, loadProjects);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const hits = useSearchHits(query);
  const locale = useLocale();

  const commands = useMemo(() => {
    const names = new Map((projects.data ?? []).map((project: Project) => [project.id, project.name]));
    const tasks = queryClient
      .getQueriesData<Task[]>({ queryKey: ['tasks'] })
      .flatMap(([, list]) => list ?? [])
      .map<Command>((task) => ({
        id: `task-${task.id}`,
        label: `${task.title} (${names.get(task.projectId) ?? t('palette.unknownProject')})`,
        group: 'Tasks',
        run: () => route(`/projects/${task.projectId}/tasks/${task.id}`),
      }));
    const projectCommands = (projects.data ?? []).map<Command>((project) => ({
      id: `project-${project.id}`,
      label: project.name,
      group: 'Projects',
      run: () => route(`/projects/${project.id}`),
    }));
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const local = [...actions, ...projectCommands, ...tasks].filter((command) => words.every((word) => command.label.toLowerCase().includes(word))).slice(0, 50);
    // The server's hits after the palette's own matches: they come a moment later, so what is
    // already listed keeps its place.
    const found = hits.map<Command>((hit) => ({
      id: `search-${hit.kind}-${hit.commentId ?? hit.task.id}`,
      label: hit.kind === 'comment' ? t('palette.commentHit', { taskKey: hit.task.key, title: hit.task.title }) : `${hit.task.key} ${hit.task.title}`,
      group: 'Search',
      snippet: hit.snippet,
      run: () => route(`/projects/${hit.task.projectId}/tasks/${hit.task.id}`),
    }));
    return [...local, ...found];
  }, [projects.data, query, actions, hits, locale]);

  useEffect(() => setActive(0), [query]);
  const choose = (command: Command | undefined) => {
    if (!command) return;
    dialog.current?.close();
    command.run();
  };
  const optionId = (index: number) => `palette-option-${index}`;

  return (
    <dialog ref={dialog} class="palette" aria-label={t('palette.label')} onClose={close}>
      <input
        type="text"
        role="combobox"
        aria-label={t('palette.searchLabel')}
        aria-expanded="true"
        aria-controls="palette-options"
        aria-autocomplete="list"
        aria-activedescendant={commands.length > 0 ? optionId(active) : undefined}
        placeholder={t('palette.searchPlaceholder')}
        value={query}
        autoFocus
        onInput={(event) => setQuery(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            const step = event.key === 'ArrowDown' ? 1 : -1;
            setActive((current) => (current + step + commands.length) % Math.max(commands.length, 1));
          } else if (event.key === 'Enter') {
            event.preventDefault();
            choose(commands[active]);
          }
        }}
      />
      <ul id="palette-options" role="listbox" aria-label={t('palette.results')}>
        {commands.map((command, index) => (
          <li
            key={command.id}
            id={optionId(index)}
            role="option"
            aria-selected={index === active}
            class={index === active ? 'active' : undefined}
            onClick={() => choose(command)}
            onMouseMove={() => setActive(index)}
          >
            <span class="muted small">{t(`palette.groups.${command.group}`)}</span> {command.label}
            {command.snippet !== undefined && <Snippet html={command.snippet} />}
          </li>
        ))}
        {commands.length === 0 && (
          <li role="option" aria-selected="false" aria-disabled="true" class="muted">
            {t('palette.noMatches')}
          </li>
        )}
      </ul>
    </dialog>
  );
}

/** `?`: every shortcut. */
export function ShortcutHelp({ onClose }: { onClose: () => void }) {
  const { dialog, close } = useModal(onClose);
  return (
    <dialog ref={dialog} class="small-dialog" aria-labelledby="shortcuts-title" onClose={close}>
      <div class="dialog-head">
        <h2 id="shortcuts-title">{t('palette.shortcuts')}</h2>
        <button type="button" onClick={() => dialog.current?.close()} aria-label={t('common.close')} autoFocus>
          {CLOSE_GLYPH}
        </button>
      </div>
      <table class="shortcuts">
        <caption class="visually-hidden">{t('palette.shortcuts')}</caption>
        <tbody>
          {shortcutList().map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </dialog>
  );
}
