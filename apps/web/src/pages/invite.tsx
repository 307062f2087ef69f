import type { AcceptedInvitation } from '@tasklane/schemas';
import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import { keys } from '../data';
import { queryClient } from '../hooks';
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
          announce('You joined the project');
          route(`/projects/${accepted.member.projectId}`, true);
        } else setAnswer(accepted);
      },
      (failure: unknown) => setError(describeError(failure)),
    );
  }, [params.token]);

  if (error) {
    return (
      <Page title="Invitation">
        <ErrorNote error={error} />
        <p>
          <a href="/">Go to your projects</a>
        </p>
      </Page>
    );
  }
  if (!answer) return <Loading what="the invitation" />;
  return (
    <Page title="Invitation">
      <p role="status">You already are a member of this project; your role is unchanged.</p>
      <p>
        <a href={`/projects/${answer.member.projectId}`}>Open the project</a>
      </p>
    </Page>
  );
}
