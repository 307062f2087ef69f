import type { Project } from '@tasklane/schemas';
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { keys, loadProjects } from '../data';
import { useCurrentUser } from '../current-user';
import { canAdminister, roleLabel } from '../format';
import { useAction, useQuery } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { ConfirmButton, EmptyState, ErrorNote, Loading, Page } from '../ui';

export function ProjectsPage() {
  const projects = useQuery(keys.projects, loadProjects);
  const { route } = useLocation();
  return (
    <Page title={t('projects.title')} actions={<a href="/import">{t('projects.import')}</a>}>
      <NewProject
        onCreated={(project) => {
          // A new project opens at once, on its (empty) board.
          projects.setData((list) => [...(list ?? []), project]);
          route(`/projects/${project.id}`);
        }}
      />
      <ErrorNote error={projects.error} />
      {projects.loading && !projects.data ? <Loading what={t('projects.loading')} /> : null}
      {projects.data?.length === 0 && <EmptyState title={t('projects.empty')} hint={t('projects.emptyHint')} />}
      <ul class="project-list">
        {projects.data?.map((project) => (
          <ProjectItem
            key={project.id}
            project={project}
            onChanged={(changed) => projects.setData((list) => list?.map((item) => (item.id === changed.id ? changed : item)))}
            onDeleted={() => projects.setData((list) => list?.filter((item) => item.id !== project.id))}
          />
        ))}
      </ul>
    </Page>
  );
}

function NewProject({ onCreated }: { onCreated: (project: Project) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const project = await run(() => client.projects.create({ name, description }));
    if (!project) return;
    onCreated(project);
    setName('');
    setDescription('');
  };
  return (
    <form class="card inline-form" onSubmit={submit} aria-label={t('projects.newProject')}>
      <label>
        {t('projects.projectName')}
        <input value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={200} />
      </label>
      <label class="grow">
        {t('common.description')}
        <input value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <button type="submit" class="primary" disabled={busy}>
        {t('projects.create')}
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

function ProjectItem(props: { project: Project; onChanged: (project: Project) => void; onDeleted: () => void }) {
  const { project } = props;
  const me = useCurrentUser();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [name, setName] = useState(project.name);
  const [description, setDescription] = useState(project.description);
  const [key, setKey] = useState(project.key);
  const { busy, error, run } = useAction();
  const isOwner = project.ownerId === me.id;

  const save = async (event: Event) => {
    event.preventDefault();
    const updated = await run(() => client.projects.update({ id: project.id, name, description, ...(key !== project.key ? { key } : {}) }));
    if (updated) {
      props.onChanged(updated);
      setEditing(false);
    }
  };
  const remove = async () => {
    const done = await run(() => client.projects.delete({ id: project.id }));
    if (done) props.onDeleted();
  };

  return (
    <li class="card project">
      {editing ? (
        <form class="stack" onSubmit={save} aria-label={t('projects.editLabel', { name: project.name })}>
          <label>
            {t('common.name')}
            <input value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={200} />
          </label>
          <label>
            {t('common.description')}
            <textarea value={description} onInput={(e) => setDescription(e.currentTarget.value)} rows={3} />
          </label>
          <label>
            {t('projects.key')}
            <input value={key} onInput={(e) => setKey(e.currentTarget.value.toUpperCase())} required pattern="[A-Za-z][A-Za-z0-9]{1,9}" maxLength={10} />
          </label>
          <div class="row">
            <button type="submit" class="primary" disabled={busy}>
              {t('common.save')}
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              {t('common.cancel')}
            </button>
          </div>
        </form>
      ) : (
        <>
          <h2>
            <a href={`/projects/${project.id}`}>{project.name}</a>
          </h2>
          <p class="muted small task-key">{project.key}</p>
          <p class="role-badge">{isOwner ? t('projects.owner') : roleLabel(project.role)}</p>
          {project.description && <p class="muted">{project.description}</p>}
          <div class="row">
            <a href={`/projects/${project.id}/members`}>{t('projects.members')}</a>
            {canAdminister(project.role) && (
              <button type="button" onClick={() => setEditing(true)}>
                {t('common.edit')}
              </button>
            )}
            {isOwner && (
              <ConfirmButton
                label={t('common.delete')}
                question={t('projects.deleteQuestion', { name: project.name })}
                confirmLabel={t('projects.deleteConfirm')}
                onConfirm={remove}
                busy={busy}
                open={confirming}
                setOpen={setConfirming}
              />
            )}
          </div>
        </>
      )}
      <ErrorNote error={error} />
    </li>
  );
}
