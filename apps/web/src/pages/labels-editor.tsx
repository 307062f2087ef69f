import type { Label } from '@tasklane/schemas';
import { DEFAULT_LABEL_COLOR, LABEL_NAME_MAX } from '@tasklane/schemas/constants';
import { useEffect, useRef, useState } from 'preact/hooks';
import { keys, loadLabels } from '../data';
import { queryClient, useEditorSave, useRename, useQuery } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { CLOSE_GLYPH, ConfirmButton, EmptyState, ErrorNote } from '../ui';

/** After a change of the labels: the list of them, and (a deletion takes the label off its tasks) the tasks. */
function refresh(projectId: string, deleted: boolean) {
  const stale = [keys.labels(projectId), ...(deleted ? [keys.tasks(projectId)] : [])];
  for (const key of stale) void queryClient.invalidateQueries({ queryKey: key });
}

/**
 * The project's labels editor (EDITOR, ADMIN and owner, as the server's `labels.manage`; the board
 * shows its button to them only): each label renamed, recoloured or deleted (after a confirmation:
 * it comes off every task), and new ones added. Every change is saved at once, with If-Match of the
 * version shown, as the fields editor does.
 */
export function LabelsEditor({ projectId, onClose }: { projectId: string; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const labels = useQuery(keys.labels(projectId), () => loadLabels(projectId));
  // changedElsewhere: shown when a label changed elsewhere since the editor loaded it (the change was refused, a 412, and the labels reloaded).
  const { busy, error, save } = useEditorSave({ changedElsewhere: t('labelsEditor.changedElsewhere'), refresh: (deleted) => refresh(projectId, deleted) });
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);

  const list = labels.data ?? [];
  return (
    <dialog ref={dialog} class="task-dialog labels-editor" aria-labelledby="labels-editor-title" onClose={onClose}>
      <div class="dialog-head">
        <h2 id="labels-editor-title">{t('common.labels')}</h2>
        <button type="button" onClick={() => dialog.current?.close()} aria-label={t('common.close')}>
          {CLOSE_GLYPH}
        </button>
      </div>
      <p class="muted small">{t('labelsEditor.intro')}</p>
      <ErrorNote error={error ?? labels.error} />
      {list.length === 0 && !labels.loading && <EmptyState title={t('labelsEditor.empty')} hint={t('labelsEditor.emptyHint')} />}
      <ul class="stack labels-list" aria-busy={busy || labels.loading}>
        {list.map((label) => (
          <LabelRow
            key={label.id}
            label={label}
            busy={busy}
            onUpdate={(patch, what) => save(what, () => client.labels.update({ id: projectId, labelId: label.id, ...patch }, { ifMatch: label }))}
            onDelete={() => void save(t('labelsEditor.deleted', { name: label.name }), () => client.labels.delete({ id: projectId, labelId: label.id }, { ifMatch: label }), true)}
          />
        ))}
      </ul>
      <NewLabel busy={busy} onAdd={(input) => save(t('labelsEditor.added', { name: input.name }), () => client.labels.create({ id: projectId, ...input }))} />
    </dialog>
  );
}

function LabelRow(props: { label: Label; busy: boolean; onUpdate: (patch: { name?: string; color?: string }, what: string) => Promise<boolean>; onDelete: () => void }) {
  const { label, busy } = props;
  // Refused (a name the project has, a 412): the field shows the label's name again.
  const rename = useRename(label.name, (name) => props.onUpdate({ name }, t('labelsEditor.renamed', { name })));
  const [deleting, setDeleting] = useState(false);
  return (
    <li class="row label-row" data-label-id={label.id}>
      <input
        type="color"
        value={label.color}
        aria-label={t('labelsEditor.colourOf', { name: label.name })}
        disabled={busy}
        onChange={(event) => void props.onUpdate({ color: event.currentTarget.value }, t('labelsEditor.recoloured', { name: label.name }))}
      />
      <input
        class="grow"
        {...rename}
        maxLength={LABEL_NAME_MAX}
        aria-label={t('labelsEditor.nameOf', { name: label.name })}
        disabled={busy}
      />
      <ConfirmButton
        label={t('labelsEditor.delete.label', { name: label.name })}
        question={t('labelsEditor.delete.question', { name: label.name })}
        confirmLabel={t('labelsEditor.delete.confirm')}
        onConfirm={props.onDelete}
        busy={busy}
        open={deleting}
        setOpen={setDeleting}
      />
    </li>
  );
}

function NewLabel({ busy, onAdd }: { busy: boolean; onAdd: (input: { name: string; color: string }) => Promise<boolean> }) {
  const [name, setName] = useState('');
  const [color, setColor] = useState<string>(DEFAULT_LABEL_COLOR);
  return (
    <form
      class="row new-label"
      aria-label={t('labelsEditor.add.form')}
      onSubmit={async (event) => {
        event.preventDefault();
        if (await onAdd({ name: name.trim(), color })) setName('');
      }}
    >
      <label class="grow">
        {t('labelsEditor.add.name')}
        <input value={name} required maxLength={LABEL_NAME_MAX} onInput={(event) => setName(event.currentTarget.value)} />
      </label>
      <label>
        {t('labelsEditor.add.colour')}
        <input type="color" value={color} onChange={(event) => setColor(event.currentTarget.value)} />
      </label>
      <button type="submit" class="primary" disabled={busy}>
        {t('labelsEditor.add.submit')}
      </button>
    </form>
  );
}
