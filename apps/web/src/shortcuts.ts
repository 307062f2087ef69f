import type { Task } from '@tasklane/schemas';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { t } from './i18n';

/**
 * Every shortcut, as the help overlay (`?`) lists them; the handlers below follow this table.
 * A function: the descriptions are in the language at the time it is read.
 */
export function shortcutList(): [keys: string, what: string][] {
  return [
    ['Ctrl K / ⌘ K', t('shortcuts.palette')],
    ['?', t('shortcuts.help')],
    ['c', t('shortcuts.newTask')],
    ['/', t('shortcuts.search')],
    ['j / ↓', t('shortcuts.next')],
    ['k / ↑', t('shortcuts.previous')],
    ['← / →', t('shortcuts.sideways')],
    ['Enter', t('shortcuts.open')],
    ['e', t('shortcuts.edit')],
    ['a', t('shortcuts.assignToMe')],
    ['1 – 9', t('shortcuts.status')],
    // Names words ("arrows"), not only keys: said in each language.
    [t('shortcuts.dragKeys'), t('shortcuts.drag')],
  ];
}

/** Keys typed into a field, a menu or a dialog belong to it, not to the shortcuts. */
export function typingIn(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element || !element.closest) return false;
  return Boolean(element.closest('input, textarea, select, [contenteditable="true"], dialog[open]')) || Boolean(document.querySelector('dialog[open]'));
}

/** The task whose card or row holds the focus. */
const focusedTaskId = () => (document.activeElement as HTMLElement | null)?.closest?.<HTMLElement>('[data-task-id]')?.dataset.taskId;

/** Moves the focus to the title of a card or row. */
export function focusTask(id: string | undefined): boolean {
  if (!id) return false;
  const link = document.querySelector<HTMLElement>(`[data-task-id="${CSS.escape(id)}"] .task-title`);
  link?.focus();
  return Boolean(link);
}

const taskLinks = (scope: Element | Document = document) => [...scope.querySelectorAll<HTMLElement>('[data-task-id] .task-title')];

/** j/k/arrows: the next card or row in reading order; ←/→ on the board: the same place in the next column. */
function moveFocus(key: string): boolean {
  const links = taskLinks();
  if (links.length === 0) return false;
  const current = links.findIndex((link) => link === document.activeElement?.closest('[data-task-id]')?.querySelector('.task-title'));
  if (key === 'ArrowLeft' || key === 'ArrowRight') {
    const columns = [...document.querySelectorAll('[data-status]')];
    if (current < 0 || columns.length === 0) return false;
    const column = links[current]!.closest('[data-status]');
    const place = taskLinks(column!).indexOf(links[current]!);
    let index = columns.indexOf(column!);
    for (;;) {
      index += key === 'ArrowRight' ? 1 : -1;
      if (index < 0 || index >= columns.length) return false;
      const candidates = taskLinks(columns[index]!);
      if (candidates.length > 0) {
        candidates[Math.min(place, candidates.length - 1)]!.focus();
        return true;
      }
    }
  }
  const forward = key === 'j' || key === 'ArrowDown';
  const next = current < 0 ? 0 : Math.max(0, Math.min(links.length - 1, current + (forward ? 1 : -1)));
  links[next]!.focus();
  return true;
}

export interface TaskShortcutActions {
  tasks: Task[];
  editable: boolean;
  onNew: () => void;
  onSearch: () => void;
  onEdit: (task: Task) => void;
  onAssignToMe: (task: Task) => void;
  /** The status of the board's column `index` (0 first). */
  onStatus: (task: Task, index: number) => void;
}

/** The board's and the list's shortcuts (see shortcutList); they act on the focused task. */
export function useTaskShortcuts(actions: TaskShortcutActions) {
  const latest = useRef(actions);
  latest.current = actions;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
      if (document.body.dataset.dragging) return;
      const { tasks, editable } = latest.current;
      const task = tasks.find((item) => item.id === focusedTaskId());
      const onCard = Boolean(task);
      const inPage = onCard || event.target === document.body || (event.target as HTMLElement).id === 'main';
      let handled = true;
      if (event.key === '/') latest.current.onSearch();
      else if (event.key === 'c' && editable) latest.current.onNew();
      else if (event.key === 'j' || event.key === 'k') moveFocus(event.key);
      else if (['ArrowDown', 'ArrowUp', 'ArrowLeft', 'ArrowRight'].includes(event.key) && inPage) handled = moveFocus(event.key);
      else if (event.key === 'e' && task) latest.current.onEdit(task);
      else if (event.key === 'a' && task && editable) latest.current.onAssignToMe(task);
      else if (/^[1-9]$/.test(event.key) && task && editable) latest.current.onStatus(task, Number(event.key) - 1);
      else handled = false;
      if (handled) event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/** The command palette's "New task": the open board (pages/board.tsx) hears it. */
export const NEW_TASK_EVENT = 'tasklane:new-task';

/** Runs `open` when the command palette asks for a new task. */
export function useNewTaskEvent(open: () => void) {
  const latest = useRef(open);
  latest.current = open;
  useLayoutEffect(() => {
    const listener = () => latest.current();
    window.addEventListener(NEW_TASK_EVENT, listener);
    return () => window.removeEventListener(NEW_TASK_EVENT, listener);
  }, []);
}
