import { TasklaneError } from '@tasklane/sdk';
import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { storeTask } from '../data';
import { t } from '../i18n';
import { client, describeError } from '../session';
import { ErrorNote, Loading, Page } from '../ui';

/**
 * `/tasks/ENG-42`, where a task key in Markdown links: the API finds the task by its key (any case,
 * a former project key too), and the address becomes the task's own on its board, replacing this
 * one in the history (Back returns to where the link was).
 */
export function TaskByKeyPage({ params }: { params: { key: string } }) {
  const { route } = useLocation();
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let current = true;
    setError(undefined);
    client.tasks.get({ id: params.key }).then(
      (task) => {
        if (!current) return;
        storeTask(task);
        route(`/projects/${task.projectId}/tasks/${task.id}`, true);
      },
      (failure: unknown) => {
        if (!current) return;
        // A key of a project the person is not in is as unknown to them as one that does not exist.
        setError(TasklaneError.from(failure).code === 'NOT_FOUND' ? t('taskByKey.notFound', { key: params.key }) : describeError(failure));
      },
    );
    return () => void (current = false);
  }, [params.key]);
  if (!error) return <Loading what={t('taskByKey.loadingWhat', { key: params.key })} />;
  return (
    <Page title={t('taskByKey.title', { key: params.key })}>
      <ErrorNote error={error} />
      <p>
        <a href="/">{t('taskByKey.back')}</a>
      </p>
    </Page>
  );
}
