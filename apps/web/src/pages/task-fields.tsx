import type { Field, FieldValue, Member, Project, Task } from '@tasklane/schemas';
import { FIELD_TEXT_MAX, FIELD_URL_MAX } from '@tasklane/schemas/constants';
import { TasklaneError } from '@tasklane/sdk';
import { useEffect, useState } from 'preact/hooks';
import { storeTask } from '../data';
import { FieldValueView, useFields } from '../fields';
import { canEditTasks } from '../format';
import { useAction } from '../hooks';
import { t } from '../i18n';
import { client, describeError } from '../session';
import { announce, ErrorNote } from '../ui';

/** What a form holds per field: the value as the controls hold it (a number as typed), null for none. */
type Values = Record<string, FieldValue | null>;

const valuesOf = (task: Task, fields: Field[]): Values => Object.fromEntries(fields.map((field) => [field.id, task.fields[field.id] ?? null]));

/** The value to send: an empty text, number or choice is no value (null clears the field). */
function normalise(field: Field, value: FieldValue | null): FieldValue | null {
  if (value === null || value === '') return null;
  if (field.type === 'number') return typeof value === 'number' ? value : Number(value);
  if (field.type === 'multi_select' && Array.isArray(value)) return value.length > 0 ? field.options.map((option) => option.id).filter((id) => value.includes(id)) : null;
  if (field.type === 'text' || field.type === 'url') return typeof value === 'string' && value.trim() === '' ? null : value;
  return value;
}

const same = (a: FieldValue | null, b: FieldValue | null) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The task's custom fields in its dialog: one control per field by its type. Saving sends only the
 * fields that changed (`fields: { id: value | null }`, merged by the server); a value the server
 * refuses shows its message next to that field. Viewers read the values.
 */
export function TaskFields({ task, project, members, onSaved }: { task: Task; project: Project; members: Member[]; onSaved?: (task: Task) => void }) {
  const fields = useFields(project.id);
  const list = fields.data ?? [];
  const editable = canEditTasks(project.role);
  const [base, setBase] = useState(() => valuesOf(task, list));
  const [draft, setDraft] = useState(base);
  const [invalid, setInvalid] = useState<Record<string, string>>({});
  const { busy, error, setError, run } = useAction();
  const changed = list.filter((field) => !same(normalise(field, draft[field.id] ?? null), normalise(field, base[field.id] ?? null)));

  // An untouched form follows the task and its fields as they change (another tab, a deleted option).
  useEffect(() => {
    const latest = valuesOf(task, list);
    if (changed.length === 0) setDraft(latest);
    setBase(latest);
  }, [task, fields.data]);

  if (list.length === 0) return fields.error ? <ErrorNote error={fields.error} /> : null;

  const save = async (event: Event) => {
    event.preventDefault();
    setInvalid({});
    const sent = draft;
    const patch = Object.fromEntries(changed.map((field) => [field.id, normalise(field, draft[field.id] ?? null)]));
    const saved = await run(() =>
      client.tasks.update({ id: task.id, fields: patch }).catch((failure: unknown) => {
        // A value refused: its message beside its field (path ["fields", id]), the rest as one note.
        const byField: Record<string, string> = {};
        for (const issue of TasklaneError.from(failure).issues ?? []) {
          if (issue.path[0] === 'fields' && typeof issue.path[1] === 'string') byField[issue.path[1]] = issue.message;
        }
        if (Object.keys(byField).length === 0) throw failure;
        setInvalid(byField);
        setError(describeError(failure));
        return undefined;
      }),
    );
    if (!saved) return;
    onSaved?.(saved);
    storeTask(saved);
    const next = valuesOf(saved, list);
    setBase(next);
    // What was typed while the save was on its way stays, to be saved next; the rest is the saved task.
    setDraft((current) => Object.fromEntries(list.map((field) => [field.id, same(current[field.id] ?? null, sent[field.id] ?? null) ? next[field.id]! : (current[field.id] ?? null)])));
    announce(t('taskFields.saved'));
  };

  return (
    <form class="stack task-custom-fields" aria-label={t('taskFields.title')} onSubmit={save} noValidate>
      <h3>{t('taskFields.title')}</h3>
      {editable ? (
        <div class="fields">
          {list.map((field) => (
            <FieldInput
              key={field.id}
              field={field}
              value={draft[field.id] ?? null}
              members={members}
              error={invalid[field.id]}
              onChange={(value) => {
                setDraft((current) => ({ ...current, [field.id]: value }));
                setInvalid(({ [field.id]: _, ...rest }) => rest);
              }}
            />
          ))}
        </div>
      ) : (
        <dl class="field-values">
          {list.map((field) => (
            <div key={field.id}>
              <dt>{field.name}</dt>
              <dd>
                <FieldValueView field={field} value={task.fields[field.id]} members={members} />
              </dd>
            </div>
          ))}
        </dl>
      )}
      <ErrorNote error={error} />
      {editable && (
        <div class="row">
          <button type="submit" disabled={busy || changed.length === 0}>
            {t('taskFields.save')}
          </button>
          {changed.length > 0 && <span class="muted small">{t('taskFields.changed', { count: changed.length })}</span>}
        </div>
      )}
    </form>
  );
}

/** One field's control by its type; its error (the server's word on this value) is tied to it. */
function FieldInput({ field, value, members, error, onChange }: { field: Field; value: FieldValue | null; members: Member[]; error: string | undefined; onChange: (value: FieldValue | null) => void }) {
  const id = `field-${field.id}`;
  const errorId = `${id}-error`;
  const described = error ? { 'aria-invalid': true, 'aria-describedby': errorId } : {};
  const text = value === null ? '' : String(value);
  const note = error && (
    <span id={errorId} class="error small">
      {error}
    </span>
  );
  if (field.type === 'multi_select') {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset class="label-picker" {...(error ? { 'aria-describedby': errorId } : {})}>
        <legend>{field.name}</legend>
        {field.options.map((option) => (
          <label key={option.id} class="check label-chip">
            <input
              type="checkbox"
              checked={chosen.includes(option.id)}
              onChange={(event) => onChange(event.currentTarget.checked ? [...chosen, option.id] : chosen.filter((other) => other !== option.id))}
            />
            <span class="dot" style={{ background: option.color }} aria-hidden="true" />
            {option.name}
          </label>
        ))}
        {note}
      </fieldset>
    );
  }
  if (field.type === 'checkbox') {
    return (
      <div>
        <label class="check">
          <input type="checkbox" checked={value === true} {...described} onChange={(event) => onChange(event.currentTarget.checked)} />
          {field.name}
        </label>
        {note}
      </div>
    );
  }
  let control;
  if (field.type === 'select' || field.type === 'user') {
    const choices = field.type === 'select' ? field.options.map((option) => ({ id: option.id, name: option.name })) : members.map((member) => ({ id: member.userId, name: member.name }));
    control = (
      <select id={id} value={text} {...described} onChange={(event) => onChange(event.currentTarget.value || null)}>
        <option value="">—</option>
        {/* A value no choice has any more (a former member) stays shown as it is. */}
        {text && !choices.some((choice) => choice.id === text) && <option value={text}>{field.type === 'user' ? t('common.formerMember') : t('taskFields.deletedOption')}</option>}
        {choices.map((choice) => (
          <option key={choice.id} value={choice.id}>
            {choice.name}
          </option>
        ))}
      </select>
    );
  } else {
    // One input for the four typed-in kinds (Preact's types want the `type` literal known, hence the cast).
    const type = (field.type === 'number' ? 'number' : field.type === 'date' ? 'date' : field.type === 'url' ? 'url' : 'text') as 'text';
    const maxLength = field.type === 'text' ? FIELD_TEXT_MAX : field.type === 'url' ? FIELD_URL_MAX : undefined;
    control = (
      <input
        id={id}
        type={type}
        value={text}
        maxLength={maxLength}
        step={field.type === 'number' ? 'any' : undefined}
        {...described}
        onInput={(event) => {
          const next = event.currentTarget.value;
          onChange(next === '' ? null : field.type === 'number' ? (Number.isFinite(Number(next)) ? Number(next) : next) : next);
        }}
      />
    );
  }
  return (
    <div class="stack field-input">
      <label for={id}>{field.name}</label>
      {control}
      {note}
    </div>
  );
}
