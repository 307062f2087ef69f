import type { State, StateCategory } from '@tasklane/schemas';
import { DEFAULT_STATE_COLORS, STATE_CATEGORIES } from '@tasklane/schemas/constants';
import { useEffect, useRef, useState } from 'preact/hooks';
import { keys } from '../data';
import { queryClient, useEditorSave, useRename } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { useStates } from '../states';
import { CLOSE_GLYPH, ErrorNote } from '../ui';

/** A category's name in the language now. */
const categoryLabel = (category: StateCategory) => t(`statesEditor.category.${category}`);

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
  // changedElsewhere: shown when a column changed elsewhere meanwhile (a 412; the editor sends no If-Match yet, so for later use).
  const { busy, error, save } = useEditorSave({ changedElsewhere: t('statesEditor.changedElsewhere'), refresh: () => refresh(projectId) });
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);

  const update = (state: State, patch: { name?: string; color?: string; category?: StateCategory; position?: number }, what: string) =>
    save(what, () => client.states.update({ id: projectId, stateId: state.id, ...patch }));

  const list = states.data ?? [];
  return (
    <dialog ref={dialog} class="task-dialog states-editor" aria-labelledby="states-editor-title" onClose={onClose}>
      <div class="dialog-head">
        <h2 id="states-editor-title">{t('statesEditor.title')}</h2>
        <button type="button" onClick={() => dialog.current?.close()} aria-label={t('common.close')}>
          {CLOSE_GLYPH}
        </button>
      </div>
      <p class="muted small">{t('statesEditor.intro')}</p>
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
              void save(t('statesEditor.deleted', { name: state.name }), () => client.states.delete({ id: projectId, stateId: state.id, ...(moveTo ? { moveTo } : {}) }))
            }
          />
        ))}
      </ol>
      <NewState busy={busy} onAdd={(input) => save(t('statesEditor.added', { name: input.name }), () => client.states.create({ id: projectId, ...input }))} />
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
  const rename = useRename(state.name, (name) => props.onUpdate({ name }, t('statesEditor.renamed', { name })));
  const [deleting, setDeleting] = useState(false);
  const [moveTo, setMoveTo] = useState('');
  return (
    <li class="state-row" data-state-key={state.key}>
      <div class="row">
        <input
          type="color"
          value={state.color}
          aria-label={t('statesEditor.colourOf', { name: state.name })}
          disabled={busy}
          onChange={(event) => props.onUpdate({ color: event.currentTarget.value }, t('statesEditor.recoloured', { name: state.name }))}
        />
        <input
          class="grow"
          {...rename}
          maxLength={50}
          aria-label={t('statesEditor.nameOf', { name: state.name })}
          disabled={busy}
        />
        <code class="muted small" title={t('statesEditor.keyHint')}>
          {state.key}
        </code>
        <select
          aria-label={t('statesEditor.categoryOf', { name: state.name })}
          value={state.category}
          disabled={busy}
          onChange={(event) => {
            const category = event.currentTarget.value as StateCategory;
            // One sentence per category: the English names the category by its key ("is now started.").
            props.onUpdate({ category }, t(`statesEditor.recategorised.${category}`, { name: state.name }));
          }}
        >
          {STATE_CATEGORIES.map((category) => (
            <option key={category} value={category}>
              {categoryLabel(category)}
            </option>
          ))}
        </select>
        <button
          type="button"
          class="icon"
          aria-label={t('statesEditor.moveLeft', { name: state.name })}
          disabled={busy || props.first}
          onClick={() => props.onUpdate({ position: state.position - 1 }, t('statesEditor.movedLeft', { name: state.name }))}
        >
          ↑
        </button>
        <button
          type="button"
          class="icon"
          aria-label={t('statesEditor.moveRight', { name: state.name })}
          disabled={busy || props.last}
          onClick={() => props.onUpdate({ position: state.position + 1 }, t('statesEditor.movedRight', { name: state.name }))}
        >
          ↓
        </button>
        <button type="button" aria-expanded={deleting} disabled={busy} onClick={() => setDeleting(!deleting)}>
          {t('statesEditor.delete', { name: state.name })}
        </button>
      </div>
      {deleting && (
        <div class="row" role="group" aria-label={t('statesEditor.delete', { name: state.name })}>
          <label>
            {t('statesEditor.moveTo')}
            <select value={moveTo} onChange={(event) => setMoveTo(event.currentTarget.value)}>
              <option value="">{t('statesEditor.nowhere')}</option>
              {props.others.map((other) => (
                <option key={other.key} value={other.key}>
                  {other.name}
                </option>
              ))}
            </select>
          </label>
          <button type="button" class="danger" disabled={busy} onClick={() => props.onDelete(moveTo || undefined)}>
            {t('statesEditor.confirmDelete')}
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
      aria-label={t('statesEditor.add.form')}
      onSubmit={async (event) => {
        event.preventDefault();
        if (await onAdd({ name: name.trim(), category, color })) setName('');
      }}
    >
      <label class="grow">
        {t('statesEditor.add.name')}
        <input value={name} required maxLength={50} onInput={(event) => setName(event.currentTarget.value)} />
      </label>
      <label>
        {t('statesEditor.add.category')}
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
              {categoryLabel(value)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('statesEditor.add.colour')}
        <input type="color" value={color} onChange={(event) => setColor(event.currentTarget.value)} />
      </label>
      <button type="submit" class="primary" disabled={busy}>
        {t('statesEditor.add.submit')}
      </button>
    </form>
  );
}
