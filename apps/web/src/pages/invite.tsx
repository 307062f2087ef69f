import type { AcceptedInvitation } from '@tasklane/schemas';
import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import { keys } from '../data';
import { queryClient } from '../hooks';
import { t } from '../i18n';
import { client, describeError } from '../session';
import { announce, ErrorNote, Loading, Page } from '../ui';

/**
 * `/invite/:token`, signed in: accepts the invitation and opens its project. (Signed out, the app
 * shows the sign-in and registration forms on this address first: app.tsx.) A member already
 * keeps their role, and is told so.
 */
export function InvitePage({ params }: { params: { token: string } }) {
  const { route } = useLocation();
  const [answer, setAnswer] = useState<AcceptedInvitation | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  // Once per visit, even when the page renders twice: the link works once.
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    client.invitations.accept({ token: params.token }).then(
      (accepted) => {
        if (accepted.joined) {
          void queryClient.invalidateQueries({ queryKey: keys.projects });
          announce(t('invite.joined'));
          route(`/projects/${accepted.member.projectId}`, true);
        } else setAnswer(accepted);
      },
      (failure: unknown) => setError(describeError(failure)),
    );
  }, [params.token]);

  if (error) {
    return (
      <Page title={t('invite.title')} narrow>
        <ErrorNote error={error} />
        <p>
          <a href="/">{t('invite.toProjects')}</a>
        </p>
      </Page>
    );
  }
  if (!answer) return <Loading what={t('invite.loading')} />;
  return (
    <Page title={t('invite.title')} narrow>
      <p role="status">{t('invite.alreadyMember')}</p>
      <p>
        <a href={`/projects/${answer.member.projectId}`}>{t('invite.openProject')}</a>
      </p>
    </Page>
  );
}
