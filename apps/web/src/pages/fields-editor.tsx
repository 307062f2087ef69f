import type { Field, FieldOption, FieldType } from '@tasklane/schemas';
import { DEFAULT_OPTION_COLOR, FIELD_NAME_MAX, FIELD_OPTION_NAME_MAX } from '@tasklane/schemas/constants';
import { useEffect, useRef, useState } from 'preact/hooks';
import { fieldKeys, keys } from '../data';
import { FIELD_TYPES, fieldTypeLabel, hasOptions, useFields } from '../fields';
import { queryClient, useEditorSave, useRename } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { CLOSE_GLYPH, ConfirmButton, EmptyState, ErrorNote } from '../ui';

/** An option as the editor sends it back in a PATCH: with its id (kept) or without (new). */
type OptionChange = { id?: string; name: string; color: string };

/**
 * After a change of the fields: the list of them and the task queries that filter by them. Only a
 * deletion (of a field or an option) changes tasks, and the server sends those as task.updated live
 * events, so a rename or move does not reload the project's tasks.
 */
function refresh(projectId: string, deleted: boolean) {
  const stale = [fieldKeys.fields(projectId), fieldKeys.taskQueries(projectId), ...(deleted ? [keys.tasks(projectId)] : [])];
  for (const key of stale) void queryClient.invalidateQueries({ queryKey: key });
}

/**
 * The project's custom fields editor (ADMIN and owner; the board shows its button to them only): the
 * fields in order, each renamed, moved up or down, its options (select and multi_select) added,
 * renamed, recoloured or deleted, or the field deleted; a new one added at the end. Every change is
 * saved at once, as the workflow editor does.
 */
export function FieldsEditor({ projectId, onClose }: { projectId: string; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const fields = useFields(projectId);
  // changedElsewhere: shown when a field changed elsewhere since the editor loaded it (the PATCH was refused, a 412, and the field reloaded).
  const { busy, error, save } = useEditorSave({ changedElsewhere: t('fieldsEditor.changedElsewhere'), refresh: (deleted) => refresh(projectId, deleted) });
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);

  // If-Match: the options list is sent whole, and an option missing from it is deleted (its values
  // cleared), so a change made from a stale copy (another admin added an option) is refused, not applied.
  const update = (field: Field, patch: { name?: string; position?: number; options?: OptionChange[] }, what: string, deletes = false) =>
    save(what, () => client.fields.update({ id: projectId, fieldId: field.id, ...patch }, { ifMatch: field }), deletes);

  const list = fields.data ?? [];
  return (
    <dialog ref={dialog} class="task-dialog fields-editor" aria-labelledby="fields-editor-title" onClose={onClose}>
      <div class="dialog-head">
        <h2 id="fields-editor-title">{t('fieldsEditor.title')}</h2>
        <button type="button" onClick={() => dialog.current?.close()} aria-label={t('common.close')}>
          {CLOSE_GLYPH}
        </button>
      </div>
      <p class="muted small">{t('fieldsEditor.intro')}</p>
      <ErrorNote error={error ?? fields.error} />
      {list.length === 0 && !fields.loading && <EmptyState title={t('fieldsEditor.empty')} hint={t('fieldsEditor.emptyHint')} />}
      <ol class="fields-list" aria-busy={busy || fields.loading}>
        {list.map((field, index) => (
          <FieldRow
            key={field.id}
            field={field}
            first={index === 0}
            last={index === list.length - 1}
            busy={busy}
            onUpdate={(patch, what, deletes) => update(field, patch, what, deletes)}
            onDelete={() => void save(t('fieldsEditor.deleted', { name: field.name }), () => client.fields.delete({ id: projectId, fieldId: field.id }, { ifMatch: field }), true)}
          />
        ))}
      </ol>
      <NewField busy={busy} onAdd={(input) => save(t('fieldsEditor.added', { name: input.name }), () => client.fields.create({ id: projectId, ...input }))} />
    </dialog>
  );
}

const optionChanges = (options: FieldOption[]): OptionChange[] => options.map(({ id, name, color }) => ({ id, name, color }));

function FieldRow(props: {
  field: Field;
  first: boolean;
  last: boolean;
  busy: boolean;
  onUpdate: (patch: { name?: string; position?: number; options?: OptionChange[] }, what: string, deletes?: boolean) => Promise<boolean>;
  onDelete: () => void;
}) {
  const { field, busy } = props;
  // A refused name stays in the field (not put back), to be sent again on the field as reloaded.
  const rename = useRename(field.name, (name) => void props.onUpdate({ name }, t('fieldsEditor.renamed', { name })));
  const [deleting, setDeleting] = useState(false);
  return (
    <li class="field-row" data-field-id={field.id}>
      <div class="row">
        <input
          class="grow"
          {...rename}
          maxLength={FIELD_NAME_MAX}
          aria-label={t('fieldsEditor.nameOf', { name: field.name })}
          disabled={busy}
        />
        <span class="muted small field-type">{fieldTypeLabel(field.type)}</span>
        <button
          type="button"
          class="icon"
          aria-label={t('fieldsEditor.moveUp', { name: field.name })}
          disabled={busy || props.first}
          onClick={() => void props.onUpdate({ position: field.position - 1 }, t('fieldsEditor.movedUp', { name: field.name }))}
        >
          ↑
        </button>
        <button
          type="button"
          class="icon"
          aria-label={t('fieldsEditor.moveDown', { name: field.name })}
          disabled={busy || props.last}
          onClick={() => void props.onUpdate({ position: field.position + 1 }, t('fieldsEditor.movedDown', { name: field.name }))}
        >
          ↓
        </button>
        <ConfirmButton
          label={t('fieldsEditor.delete.label', { name: field.name })}
          question={t('fieldsEditor.delete.question', { name: field.name })}
          confirmLabel={t('fieldsEditor.delete.confirm')}
          onConfirm={props.onDelete}
          busy={busy}
          open={deleting}
          setOpen={setDeleting}
        />
      </div>
      {hasOptions(field.type) && <OptionsEditor field={field} busy={busy} onChange={(options, what, deletes) => props.onUpdate({ options }, what, deletes)} />}
    </li>
  );
}

/** A select's options: each renamed, recoloured or deleted (after a confirmation: it is cleared from tasks), and new ones added. */
function OptionsEditor({ field, busy, onChange }: { field: Field; busy: boolean; onChange: (options: OptionChange[], what: string, deletes?: boolean) => Promise<boolean> }) {
  const [name, setName] = useState('');
  const [color, setColor] = useState<string>(DEFAULT_OPTION_COLOR);
  const current = optionChanges(field.options);
  const replace = (id: string, patch: Partial<OptionChange>) => current.map((option) => (option.id === id ? { ...option, ...patch } : option));
  return (
    <fieldset class="field-options-editor">
      <legend>{t('fieldsEditor.options.of', { name: field.name })}</legend>
      <ul class="stack">
        {field.options.map((option) => (
          <OptionRow
            key={option.id}
            field={field}
            option={option}
            busy={busy}
            onRename={(next) => void onChange(replace(option.id, { name: next }), t('fieldsEditor.options.renamed', { name: next }))}
            onRecolour={(next) => void onChange(replace(option.id, { color: next }), t('fieldsEditor.options.recoloured', { name: option.name }))}
            onDelete={() => void onChange(current.filter((other) => other.id !== option.id), t('fieldsEditor.options.deleted', { name: option.name }), true)}
          />
        ))}
      </ul>
      <div class="row" role="group" aria-label={t('fieldsEditor.options.addTo', { name: field.name })}>
        <input type="color" value={color} aria-label={t('fieldsEditor.options.newColour')} disabled={busy} onChange={(event) => setColor(event.currentTarget.value)} />
        <input
          class="grow"
          value={name}
          maxLength={FIELD_OPTION_NAME_MAX}
          aria-label={t('fieldsEditor.options.newOf', { name: field.name })}
          disabled={busy}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <button
          type="button"
          disabled={busy || !name.trim()}
          onClick={async () => {
            if (await onChange([...current, { name: name.trim(), color }], t('fieldsEditor.options.added', { name: name.trim() }))) setName('');
          }}
        >
          {t('fieldsEditor.options.add')}
        </button>
      </div>
    </fieldset>
  );
}

function OptionRow(props: { field: Field; option: FieldOption; busy: boolean; onRename: (name: string) => void; onRecolour: (color: string) => void; onDelete: () => void }) {
  const { option, busy } = props;
  const rename = useRename(option.name, props.onRename);
  const [deleting, setDeleting] = useState(false);
  return (
    <li class="row">
      <input type="color" value={option.color} aria-label={t('fieldsEditor.options.colourOf', { name: option.name })} disabled={busy} onChange={(event) => props.onRecolour(event.currentTarget.value)} />
      <input
        class="grow"
        {...rename}
        maxLength={FIELD_OPTION_NAME_MAX}
        aria-label={t('fieldsEditor.options.nameOf', { name: option.name })}
        disabled={busy}
      />
      <ConfirmButton
        label={t('fieldsEditor.options.delete.label', { name: option.name })}
        question={t('fieldsEditor.options.delete.question', { name: option.name })}
        confirmLabel={t('fieldsEditor.options.delete.confirm')}
        onConfirm={props.onDelete}
        busy={busy}
        open={deleting}
        setOpen={setDeleting}
      />
    </li>
  );
}

/** A new field: its name, type and (for the choice types) first options with their colours. */
function NewField({ busy, onAdd }: { busy: boolean; onAdd: (input: { name: string; type: FieldType; options?: { name: string; color: string }[] }) => Promise<boolean> }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<FieldType>('text');
  const [options, setOptions] = useState<{ name: string; color: string }[]>([]);
  const setOption = (index: number, patch: Partial<{ name: string; color: string }>) => setOptions((list) => list.map((option, at) => (at === index ? { ...option, ...patch } : option)));
  return (
    <form
      class="stack new-field"
      aria-label={t('fieldsEditor.add.form')}
      onSubmit={async (event) => {
        event.preventDefault();
        const chosen = options.map((option) => ({ ...option, name: option.name.trim() })).filter((option) => option.name);
        const added = await onAdd({ name: name.trim(), type, ...(hasOptions(type) ? { options: chosen } : {}) });
        if (!added) return;
        setName('');
        setOptions([]);
      }}
    >
      <div class="row">
        <label class="grow">
          {t('fieldsEditor.add.name')}
          <input value={name} required maxLength={FIELD_NAME_MAX} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <label>
          {t('fieldsEditor.add.type')}
          <select value={type} onChange={(event) => setType(event.currentTarget.value as FieldType)}>
            {FIELD_TYPES.map((value) => (
              <option key={value} value={value}>
                {fieldTypeLabel(value)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {hasOptions(type) && (
        <fieldset>
          <legend>{t('fieldsEditor.add.options')}</legend>
          <ol class="stack">
            {options.map((option, index) => (
              <li key={index} class="row">
                <input
                  type="color"
                  value={option.color}
                  aria-label={t('fieldsEditor.add.optionColour', { number: index + 1 })}
                  onChange={(event) => setOption(index, { color: event.currentTarget.value })}
                />
                <input
                  class="grow"
                  value={option.name}
                  maxLength={FIELD_OPTION_NAME_MAX}
                  aria-label={t('fieldsEditor.add.option', { number: index + 1 })}
                  onInput={(event) => setOption(index, { name: event.currentTarget.value })}
                />
                <button type="button" aria-label={t('fieldsEditor.add.removeOption', { number: index + 1 })} onClick={() => setOptions((list) => list.filter((_, at) => at !== index))}>
                  {t('common.remove')}
                </button>
              </li>
            ))}
          </ol>
          <button type="button" onClick={() => setOptions((list) => [...list, { name: '', color: DEFAULT_OPTION_COLOR }])}>
            {t('fieldsEditor.add.addOption')}
          </button>
        </fieldset>
      )}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {t('fieldsEditor.add.submit')}
        </button>
      </div>
    </form>
  );
}
