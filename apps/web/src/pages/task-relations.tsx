import type { Project, Task, TaskRelation } from '@tasklane/schemas';
import { useState } from 'preact/hooks';
import { keys, loadRelations } from '../data';
import { useAction, useQuery } from '../hooks';
import { t } from '../i18n';
import { refreshRelated } from '../live';
import { humanizeKey } from '../states';
import { client } from '../session';
import { EmptyState, ErrorNote } from '../ui';

/**
 * How a relation reads from this task, as a person says it (its words are `taskRelations.kinds.<kind>`):
 * each is a group of the list and a choice of the add form. The server relates from the source, so
 * "blocked by" and "duplicated by" are made from the other task.
 */
const KINDS = {
  blocks: { type: 'blocks', direction: 'outgoing' },
  blockedBy: { type: 'blocks', direction: 'incoming' },
  relatesTo: { type: 'relates_to', direction: 'either' },
  duplicates: { type: 'duplicates', direction: 'outgoing' },
  duplicatedBy: { type: 'duplicates', direction: 'incoming' },
} as const;
type Kind = keyof typeof KINDS;
const kindLabel = (kind: Kind) => t(`taskRelations.kinds.${kind}`);

const kindOf = (relation: TaskRelation): Kind =>
  (Object.keys(KINDS) as Kind[]).find((kind) => {
    const { type, direction } = KINDS[kind];
    return type === relation.type && (direction === 'either' || direction === relation.direction);
  })!;

/** The task's relations, grouped (blocks, blocked by, relates to, duplicates, duplicated by); editors add and remove them. */
export function Relations({ task, project, editable }: { task: Task; project: Project; editable: boolean }) {
  const relations = useQuery(keys.relations(task.id), () => loadRelations(task.id));
  const { busy, error, run } = useAction();

  const remove = async (relation: TaskRelation) => {
    const removed = await run(() => client.relations.delete({ id: task.id, relationId: relation.id }));
    if (!removed) return;
    relations.setData((list) => list?.filter((item) => item.id !== relation.id));
    const [source, target] = relation.direction === 'outgoing' ? [task.id, relation.task.id] : [relation.task.id, task.id];
    await refreshRelated({ taskId: source, relatedTaskId: target });
  };

  return (
    <section class="relations" aria-labelledby="relations-title">
      <h3 id="relations-title">{t('taskRelations.title')}</h3>
      {task.blocked && <p class="blocked-mark">{t('taskRelations.blocked')}</p>}
      <ErrorNote error={relations.error ?? error} />
      {relations.data?.length === 0 && <EmptyState small title={t('taskRelations.empty')} hint={editable ? t('taskRelations.emptyHint') : undefined} />}
      {(Object.keys(KINDS) as Kind[]).map((kind) => {
        const group = relations.data?.filter((relation) => kindOf(relation) === kind) ?? [];
        if (group.length === 0) return null;
        return (
          <div key={kind} class="relation-group" role="group" aria-label={kindLabel(kind)}>
            <h4 class="small">{kindLabel(kind)}</h4>
            <ul class="relation-list">
              {group.map((relation) => (
                <li key={relation.id}>
                  <a href={`/projects/${relation.task.projectId}/tasks/${relation.task.id}`}>
                    {relation.task.key ? `${relation.task.key} ` : ''}
                    {relation.task.title}
                  </a>{' '}
                  <span class="muted small">{humanizeKey(relation.task.status)}</span>
                  {editable && (
                    <button type="button" class="link" disabled={busy} onClick={() => void remove(relation)} aria-label={t('taskRelations.removeLabel', { title: relation.task.title })}>
                      {t('common.remove')}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          </div>
        );
      })}
      {editable && <AddRelation task={task} project={project} onAdded={relations.reload} />}
    </section>
  );
}

/** Pick a kind, search the project's tasks by title, pick one: the relation is made. */
function AddRelation({ task, project, onAdded }: { task: Task; project: Project; onAdded: () => void }) {
  const [kind, setKind] = useState<Kind>('blocks');
  const [text, setText] = useState('');
  const [found, setFound] = useState<Task[] | undefined>(undefined);
  const { busy, error, run } = useAction();

  const search = async (event: Event) => {
    event.preventDefault();
    const page = await run(() => client.tasks.list({ projectId: project.id, q: text.trim(), limit: 10 }));
    if (page) setFound(page.items.filter((item) => item.id !== task.id));
  };
  const relate = async (other: Task) => {
    const { type, direction } = KINDS[kind];
    // Made from the source: this task, or, for "blocked by" and "duplicated by", the other one.
    const [source, target] = direction === 'incoming' ? [other.id, task.id] : [task.id, other.id];
    const created = await run(() => client.relations.create({ id: source, type, taskId: target }));
    if (!created) return;
    setFound(undefined);
    setText('');
    onAdded();
    await refreshRelated(created);
  };

  return (
    <form class="stack add-relation" onSubmit={search} aria-label={t('taskRelations.addLabel')}>
      <div class="row">
        <label>
          {t('taskRelations.relation')}
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
            {(Object.keys(KINDS) as Kind[]).map((value) => (
              <option key={value} value={value}>
                {kindLabel(value)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('taskRelations.find')}
          <input type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder={t('common.title')} required maxLength={200} />
        </label>
        <button type="submit" disabled={busy}>
          {t('taskRelations.search')}
        </button>
      </div>
      <ErrorNote error={error} />
      {found?.length === 0 && <p class="muted small">{t('taskRelations.noMatches')}</p>}
      {found && found.length > 0 && (
        <ul class="relation-candidates" aria-label={t('taskRelations.matches')}>
          {found.map((candidate) => (
            <li key={candidate.id}>
              <button type="button" disabled={busy} onClick={() => void relate(candidate)}>
                {t('taskRelations.candidate', { kind: kindLabel(kind), title: candidate.title })}
              </button>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
