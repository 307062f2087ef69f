import type { Attachment, Project, Task } from '@tasklane/schemas';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useCurrentUser } from '../current-user';
import { keys, loadAttachments } from '../data';
import { canAdminister, canEditTasks, formatBytes } from '../format';
import { queryClient, useAction, useQuery } from '../hooks';
import { t } from '../i18n';
import { client, describeError } from '../session';
import { EmptyState, ErrorNote } from '../ui';

interface Upload {
  key: number;
  name: string;
  loaded: number;
  total: number;
  error?: string;
}

let uploadKeys = 0;

/**
 * Uploads files to a task one after another, with each one's progress; the stored attachment joins
 * the task's cached list at once. Used by the dialog's drop zone and file picker, and by the comment box.
 */
export function useUploads(taskId: string) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const update = (key: number, change: Partial<Upload>) => setUploads((all) => all.map((item) => (item.key === key ? { ...item, ...change } : item)));
  const upload = async (files: File[]): Promise<Attachment[]> => {
    const stored: Attachment[] = [];
    for (const file of files) {
      const key = (uploadKeys += 1);
      setUploads((all) => [...all, { key, name: file.name, loaded: 0, total: file.size }]);
      try {
        const attachment = await client.attachments.upload(taskId, file, { onProgress: ({ loaded }) => update(key, { loaded }) });
        addToCache(attachment);
        stored.push(attachment);
        setUploads((all) => all.filter((item) => item.key !== key));
      } catch (failure) {
        update(key, { error: describeError(failure) });
      }
    }
    return stored;
  };
  const dismiss = (key: number) => setUploads((all) => all.filter((item) => item.key !== key));
  return { uploads, upload, dismiss };
}

function addToCache(attachment: Attachment) {
  queryClient.setQueryData<Attachment[]>(keys.attachments(attachment.taskId), (list) =>
    list && !list.some((item) => item.id === attachment.id) ? [...list, attachment] : list,
  );
}

/** Each upload under way: a progress bar, or the server's refusal (too large, over the quota) to dismiss. */
export function UploadProgress({ uploads, dismiss }: { uploads: Upload[]; dismiss: (key: number) => void }) {
  if (uploads.length === 0) return null;
  return (
    <ul class="uploads" aria-label={t('taskAttachments.uploads')}>
      {uploads.map((item) => (
        <li key={item.key} class="row">
          {item.error ? (
            <>
              <span class="error" role="alert">
                {t('taskAttachments.failed', { name: item.name, error: item.error })}
              </span>
              <button type="button" onClick={() => dismiss(item.key)}>
                {t('taskAttachments.dismiss')}
              </button>
            </>
          ) : (
            <>
              <span>{item.name}</span>
              <progress max={item.total || 1} value={item.loaded} aria-label={t('taskAttachments.uploading', { name: item.name })} />
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * The task's files: dropped anywhere on the task dialog or chosen with the file picker (EDITOR and
 * up), shown as a gallery of previews with name and size, downloaded through their signed link, and
 * deleted after a confirmation by their uploader or an ADMIN.
 */
export function Attachments({ task, project }: { task: Task; project: Project }) {
  const attachments = useQuery(keys.attachments(task.id), () => loadAttachments(task.id));
  const { uploads, upload, dismiss } = useUploads(task.id);
  const editable = canEditTasks(project.role);
  const section = useRef<HTMLElement>(null);
  const [dropping, setDropping] = useState(false);
  const me = useCurrentUser();

  useEffect(() => {
    const dialog = section.current?.closest('dialog');
    if (!dialog || !editable) return;
    const carriesFiles = (event: DragEvent) => event.dataTransfer?.types.includes('Files') ?? false;
    const over = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      event.dataTransfer!.dropEffect = 'copy';
      setDropping(true);
    };
    const leave = (event: DragEvent) => {
      // Leaving the dialog itself (not moving between its children).
      if (!event.relatedTarget || !dialog.contains(event.relatedTarget as Node)) setDropping(false);
    };
    const drop = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      setDropping(false);
      void upload([...(event.dataTransfer?.files ?? [])]);
    };
    dialog.addEventListener('dragover', over);
    dialog.addEventListener('dragleave', leave);
    dialog.addEventListener('drop', drop);
    return () => {
      dialog.removeEventListener('dragover', over);
      dialog.removeEventListener('dragleave', leave);
      dialog.removeEventListener('drop', drop);
    };
  }, [editable, task.id]);

  const canDelete = (attachment: Attachment) => editable && (attachment.uploaderId === me.id || canAdminister(project.role));

  return (
    <section ref={section} class={`attachments stack${dropping ? ' dropping' : ''}`} aria-labelledby="attachments-heading">
      <h3 id="attachments-heading">
        {t('taskAttachments.title')}
        {attachments.data && attachments.data.length > 0 && <span class="muted"> {attachments.data.length}</span>}
      </h3>
      <ErrorNote error={attachments.error} />
      {editable && (
        <div class="row">
          <label class="button file-picker">
            {t('taskAttachments.attach')}
            <input
              type="file"
              multiple
              class="visually-hidden"
              onChange={(event) => {
                const input = event.currentTarget;
                void upload([...(input.files ?? [])]);
                input.value = '';
              }}
            />
          </label>
          <span class="muted small">{dropping ? t('taskAttachments.dropNow') : t('taskAttachments.dropHint')}</span>
        </div>
      )}
      <UploadProgress uploads={uploads} dismiss={dismiss} />
      {attachments.data?.length === 0 && <EmptyState small title={t('taskAttachments.empty')} hint={editable ? t('taskAttachments.emptyHint') : undefined} />}
      {attachments.data && attachments.data.length > 0 && (
        <Gallery
          attachments={attachments.data}
          canDelete={canDelete}
          onDeleted={(id) => {
            attachments.setData((list) => list?.filter((item) => item.id !== id));
            // A comment may have shown it.
            void queryClient.invalidateQueries({ queryKey: keys.comments(task.id) });
          }}
        />
      )}
    </section>
  );
}

/** Files as tiles: a preview (or the file's type), the name as its download link, the size; delete where allowed. */
export function Gallery(props: { attachments: Attachment[]; canDelete?: (attachment: Attachment) => boolean; onDeleted?: (id: string) => void; label?: string }) {
  const [deleting, setDeleting] = useState<Attachment | undefined>(undefined);
  return (
    <>
      <ul class="attachment-gallery" aria-label={props.label ?? t('taskAttachments.files')}>
        {props.attachments.map((attachment) => (
          <li key={attachment.id} class="attachment">
            <Preview attachment={attachment} />
            <DownloadLink attachment={attachment} />
            <span class="muted small">{formatBytes(attachment.size)}</span>
            {props.canDelete?.(attachment) && (
              <button type="button" class="danger small-button" aria-label={t('taskAttachments.deleteLabel', { filename: attachment.filename })} onClick={() => setDeleting(attachment)}>
                {t('common.delete')}
              </button>
            )}
          </li>
        ))}
      </ul>
      {deleting && (
        <ConfirmDelete
          attachment={deleting}
          onClose={(deleted) => {
            setDeleting(undefined);
            if (deleted) props.onDeleted?.(deleting.id);
          }}
        />
      )}
    </>
  );
}

/** The preview, read with the token and shown as a data: URL (the app's content policy allows no blob: images). */
function Preview({ attachment }: { attachment: Attachment }) {
  const preview = useQuery(keys.thumbnail(attachment.id), () =>
    attachment.thumbnail ? client.attachments.thumbnail(attachment.id).then(async (response) => dataUrlOf(await response.blob())) : Promise.resolve(null),
  );
  if (preview.data) return <img class="thumbnail" src={preview.data} alt={t('taskAttachments.preview', { filename: attachment.filename })} />;
  const extension = /\.([a-z0-9]{1,5})$/i.exec(attachment.filename)?.[1]?.toUpperCase() ?? t('taskAttachments.fileType');
  return (
    <span class="thumbnail file-type" aria-hidden="true">
      {extension}
    </span>
  );
}

const dataUrlOf = (blob: Blob) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });

/**
 * The file's signed link; a click asks for a fresh one first (a signed link lives a few minutes, the
 * dialog may have been open longer).
 */
function DownloadLink({ attachment }: { attachment: Attachment }) {
  return (
    <a
      class="attachment-name"
      href={attachment.downloadUrl}
      download={attachment.filename}
      onClick={(event) => {
        event.preventDefault();
        void client.attachments
          .get({ id: attachment.id })
          .then((fresh) => {
            const link = document.createElement('a');
            link.href = fresh.downloadUrl;
            link.download = fresh.filename;
            link.click();
          })
          .catch(() => window.location.assign(attachment.downloadUrl));
      }}
    >
      {attachment.filename}
    </a>
  );
}

/** A modal question over the task dialog: Cancel has the focus, Esc cancels. */
function ConfirmDelete({ attachment, onClose }: { attachment: Attachment; onClose: (deleted: boolean) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const { busy, error, run } = useAction();
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const remove = async () => {
    if (await run(() => client.attachments.delete({ id: attachment.id }))) {
      dialog.current?.close();
      onClose(true);
    }
  };
  return (
    <dialog
      ref={dialog}
      class="small-dialog"
      role="alertdialog"
      aria-labelledby="delete-attachment-question"
      onCancel={(event) => {
        event.preventDefault();
        dialog.current?.close();
        onClose(false);
      }}
    >
      <p id="delete-attachment-question">{t('taskAttachments.deleteQuestion', { filename: attachment.filename })}</p>
      <ErrorNote error={error} />
      <div class="row">
        <button type="button" class="danger" disabled={busy} onClick={remove}>
          {t('taskAttachments.deleteFile')}
        </button>
        <button
          type="button"
          autoFocus
          onClick={() => {
            dialog.current?.close();
            onClose(false);
          }}
        >
          {t('common.cancel')}
        </button>
      </div>
    </dialog>
  );
}
