import { DEFAULT_STATE_COLORS, STATE_CATEGORIES, type State, type StateCategory } from '@tasklane/schemas';
import { useEffect, useRef, useState } from 'preact/hooks';
import { keys } from '../data';
import { queryClient, useEditorSave, useFollowed } from '../hooks';
import { client } from '../session';
import { useStates } from '../states';
import { ErrorNote } from '../ui';

const CATEGORY_LABELS: Record<StateCategory, string> = {
  backlog: 'Backlog',
  unstarted: 'Not started',
  started: 'Started',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

/** Shown when a column changed elsewhere meanwhile (a 412; the editor sends no If-Match yet, so for later use). */
const STATE_CHANGED_ELSEWHERE = 'Someone else changed the workflow meanwhile; it was reloaded, so check it and try again.';

/** After a change of the states: the board's columns, the counts and (a delete moved some) the tasks. */
function refresh(projectId: string) {
  for (const key of [keys.states(projectId), keys.project(projectId), keys.tasks(projectId)]) void queryClient.invalidateQueries({ queryKey: key });
}

/**
 * The project's workflow editor (ADMIN and owner; the board shows its button to them only): the
 * columns in order, each renamed, recoloured, recategorised, moved or deleted (its tasks moved to
 * another column), and a new one added at the end. Every change is saved at once.
 */
export function StatesEditor({ projectId, onClose }: { projectId: string; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const states = useStates(projectId);
  const { busy, error, save } = useEditorSave({ changedElsewhere: STATE_CHANGED_ELSEWHERE, refresh: () => refresh(projectId) });
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);

  const update = (state: State, patch: { name?: string; color?: string; category?: StateCategory; position?: number }, what: string) =>
    save(what, () => client.states.update({ id: projectId, stateId: state.id, ...patch }));

  const list = states.data ?? [];
  return (
    <dialog ref={dialog} class="task-dialog states-editor" aria-labelledby="states-editor-title" onClose={onClose}>
      <div class="dialog-head">
        <h2 id="states-editor-title">Workflow</h2>
        <button type="button" onClick={() => dialog.current?.close()} aria-label="Close">
          ✕
        </button>
      </div>
      <p class="muted small">The board's columns, in order. A task's status is one of them; a project keeps at least one not-started and one completed column.</p>
      <ErrorNote error={error ?? states.error} />
      <ol class="states-list" aria-busy={busy || states.loading}>
        {list.map((state, index) => (
          <StateRow
            key={state.id}
            state={state}
            others={list.filter((other) => other.id !== state.id)}
            first={index === 0}
            last={index === list.length - 1}
            busy={busy}
            onUpdate={(patch, what) => void update(state, patch, what)}
            onDelete={(moveTo) =>
              void save(`${state.name} deleted.`, () => client.states.delete({ id: projectId, stateId: state.id, ...(moveTo ? { moveTo } : {}) }))
            }
          />
        ))}
      </ol>
      <NewState busy={busy} onAdd={(input) => save(`${input.name} added.`, () => client.states.create({ id: projectId, ...input }))} />
    </dialog>
  );
}

function StateRow(props: {
  state: State;
  others: State[];
  first: boolean;
  last: boolean;
  busy: boolean;
  onUpdate: (patch: { name?: string; color?: string; category?: StateCategory; position?: number }, what: string) => void;
  onDelete: (moveTo: string | undefined) => void;
}) {
  const { state, busy } = props;
  const [name, setName] = useFollowed(state.name);
  const [deleting, setDeleting] = useState(false);
  const [moveTo, setMoveTo] = useState('');
  const rename = () => {
    const trimmed = name.trim();
    if (trimmed && trimmed !== state.name) props.onUpdate({ name: trimmed }, `Renamed to ${trimmed}.`);
    else setName(state.name);
  };
  return (
    <li class="state-row" data-state-key={state.key}>
      <div class="row">
        <input
          type="color"
          value={state.color}
          aria-label={`Colour of ${state.name}`}
          disabled={busy}
          onChange={(event) => props.onUpdate({ color: event.currentTarget.value }, `${state.name} recoloured.`)}
        />
        <input
          class="grow"
          value={name}
          maxLength={50}
          aria-label={`Name of ${state.name}`}
          disabled={busy}
          onInput={(event) => setName(event.currentTarget.value)}
          onBlur={rename}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              rename();
            }
          }}
        />
        <code class="muted small" title="The key tasks carry as their status; it never changes">
          {state.key}
        </code>
        <select
          aria-label={`Category of ${state.name}`}
          value={state.category}
          disabled={busy}
          onChange={(event) => props.onUpdate({ category: event.currentTarget.value as StateCategory }, `${state.name} is now ${event.currentTarget.value}.`)}
        >
          {STATE_CATEGORIES.map((category) => (
            <option key={category} value={category}>
              {CATEGORY_LABELS[category]}
            </option>
          ))}
        </select>
        <button type="button" class="icon" aria-label={`Move ${state.name} left`} disabled={busy || props.first} onClick={() => props.onUpdate({ position: state.position - 1 }, `${state.name} moved left.`)}>
          ↑
        </button>
        <button type="button" class="icon" aria-label={`Move ${state.name} right`} disabled={busy || props.last} onClick={() => props.onUpdate({ position: state.position + 1 }, `${state.name} moved right.`)}>
          ↓
        </button>
        <button type="button" aria-expanded={deleting} disabled={busy} onClick={() => setDeleting(!deleting)}>
          Delete {state.name}
        </button>
      </div>
      {deleting && (
        <div class="row" role="group" aria-label={`Delete ${state.name}`}>
          <label>
            Move its tasks to
            <select value={moveTo} onChange={(event) => setMoveTo(event.currentTarget.value)}>
              <option value="">Nowhere (it has none)</option>
              {props.others.map((other) => (
                <option key={other.key} value={other.key}>
                  {other.name}
                </option>
              ))}
            </select>
          </label>
          <button type="button" class="danger" disabled={busy} onClick={() => props.onDelete(moveTo || undefined)}>
            Confirm delete
          </button>
        </div>
      )}
    </li>
  );
}

function NewState({ busy, onAdd }: { busy: boolean; onAdd: (input: { name: string; category: StateCategory; color: string }) => Promise<boolean> }) {
  const [name, setName] = useState('');
  const [category, setCategory] = useState<StateCategory>('started');
  const [color, setColor] = useState<string>(DEFAULT_STATE_COLORS.started);
  return (
    <form
      class="row new-state"
      aria-label="Add a column"
      onSubmit={async (event) => {
        event.preventDefault();
        if (await onAdd({ name: name.trim(), category, color })) setName('');
      }}
    >
      <label class="grow">
        New column
        <input value={name} required maxLength={50} onInput={(event) => setName(event.currentTarget.value)} />
      </label>
      <label>
        Category
        <select
          value={category}
          onChange={(event) => {
            const next = event.currentTarget.value as StateCategory;
            setCategory(next);
            setColor(DEFAULT_STATE_COLORS[next]);
          }}
        >
          {STATE_CATEGORIES.map((value) => (
            <option key={value} value={value}>
              {CATEGORY_LABELS[value]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Colour
        <input type="color" value={color} onChange={(event) => setColor(event.currentTarget.value)} />
      </label>
      <button type="submit" class="primary" disabled={busy}>
        Add column
      </button>
    </form>
  );
}
