import type { Invitation, Member, Project, Role } from '@tasklane/schemas';
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { useCurrentUser } from '../current-user';
import { keys, loadInvitations, loadMembers } from '../data';
import { canAdminister, formatDay, roleLabel, roleLabels } from '../format';
import { queryClient, useAction, useQuery } from '../hooks';
import { client } from '../session';
import { saveResponse } from '../download';
import { t } from '../i18n';
import { announce, ConfirmButton, EnumOptions, ErrorNote, Loading, Page } from '../ui';

/**
 * The links of invitations made in this tab while the server sends no email, by invitation id: the
 * server gives a link once, in the invite's answer, so a reload of the list (a live event) keeps it.
 */
const passOnLinks = new Map<string, string>();

export function MembersPage({ params }: { params: { projectId: string } }) {
  const { projectId } = params;
  const project = useQuery(keys.project(projectId), () => client.projects.get({ id: projectId }));
  const members = useQuery(keys.members(projectId), () => loadMembers(projectId));

  if (project.error) return <Page title={t('members.title')}><ErrorNote error={project.error} /></Page>;
  if (!project.data) return <Loading what={t('members.loadingProject')} />;
  const admin = canAdminister(project.data.role);
  const replace = (changed: Member) => members.setData((list) => list?.map((member) => (member.id === changed.id ? changed : member)));

  return (
    <Page
      title={t('members.pageTitle', { project: project.data.name })}
      narrow
      actions={
        <nav aria-label={t('members.nav.label')}>
          <a href={`/projects/${projectId}`}>{t('members.nav.board')}</a>
          {admin && (
            <>
              {' '}
              <a href={`/projects/${projectId}/webhooks`}>{t('members.nav.webhooks')}</a>
            </>
          )}
        </nav>
      }
    >
      {admin ? (
        <Invite projectId={projectId} onInvited={(member) => members.setData((list) => [...(list ?? []), member])} />
      ) : (
        <p class="muted">{t('members.adminsOnly', { role: roleLabel(project.data.role) })}</p>
      )}
      <ErrorNote error={members.error} />
      <table class="members">
        <caption class="visually-hidden">{t('members.caption', { project: project.data.name })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('common.name')}</th>
            <th scope="col">{t('common.email')}</th>
            <th scope="col">{t('common.role')}</th>
          </tr>
        </thead>
        <tbody>
          {members.data?.map((member) => (
            <MemberRow
              key={member.id}
              member={member}
              project={project.data as Project}
              admin={admin}
              onChanged={replace}
              onRemoved={() => members.setData((list) => list?.filter((item) => item.id !== member.id))}
            />
          ))}
        </tbody>
      </table>
      {admin && <Invitations projectId={projectId} />}
      {admin && <ProjectExport projectId={projectId} />}
    </Page>
  );
}

/** The whole project as a file, for ADMINs and the owner: JSON (everything) or CSV (the tasks). */
function ProjectExport({ projectId }: { projectId: string }) {
  const { run, busy, error } = useAction();
  const save = (format: 'json' | 'csv') =>
    void run(async () => {
      await saveResponse(await client.projects.export({ id: projectId, format }), `project.${format}`);
      announce(t('members.export.downloading', { format: format.toUpperCase() }));
    });
  return (
    <section class="stack" aria-labelledby="export-title">
      <h2 id="export-title">{t('members.export.title')}</h2>
      <p class="muted">{t('members.export.intro')}</p>
      <ErrorNote error={error} />
      <div class="row">
        <button type="button" disabled={busy} onClick={() => save('json')}>
          {t('members.export.json')}
        </button>
        <button type="button" disabled={busy} onClick={() => save('csv')}>
          {t('members.export.csv')}
        </button>
      </div>
    </section>
  );
}

/**
 * The pending invitations of emails without an account, each with its expiry and a Revoke button;
 * the one just made shows its link when the server sends no email (the answer carries it once).
 */
function Invitations({ projectId }: { projectId: string }) {
  const invitations = useQuery(keys.invitations(projectId), () => loadInvitations(projectId));
  const { busy, error, run } = useAction();
  const revoke = async (invitation: Invitation) => {
    if ((await run(() => client.invitations.revoke({ id: projectId, invitationId: invitation.id }))) === undefined) return;
    invitations.setData((list) => list?.filter((item) => item.id !== invitation.id));
  };
  const list = invitations.data ?? [];
  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">{t('members.invitations.title')}</h2>
      <ErrorNote error={invitations.error ?? error} />
      {list.length === 0 ? (
        <p class="muted">{t('members.invitations.empty')}</p>
      ) : (
        <ul class="invitations">
          {list.map((invitation) => (
            <li key={invitation.id} data-invitation-id={invitation.id}>
              <span>{invitation.email}</span> <span>{roleLabel(invitation.role)}</span>{' '}
              <span class="muted">
                {t('members.invitations.expires.before')}
                <time dateTime={invitation.expiresAt}>{formatDay(invitation.expiresAt)}</time>
                {t('members.invitations.expires.after')}
              </span>
              {passOnLinks.has(invitation.id) && (
                <label class="invite-link">
                  {t('members.invitations.link')}
                  <input readOnly value={passOnLinks.get(invitation.id)} onFocus={(e) => e.currentTarget.select()} />
                </label>
              )}
              <button type="button" disabled={busy} onClick={() => revoke(invitation)} aria-label={t('members.invitations.revokeLabel', { email: invitation.email })}>
                {t('members.invitations.revoke')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Invite({ projectId, onInvited }: { projectId: string; onInvited: (member: Member) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('VIEWER');
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const invited = await run(() => client.members.invite({ id: projectId, email, role }));
    if (!invited) return;
    if ('status' in invited) {
      // No account has this email: the invitation joins the list (a renewal replaces its row).
      if (invited.acceptUrl) passOnLinks.set(invited.id, invited.acceptUrl);
      else passOnLinks.delete(invited.id);
      queryClient.setQueryData<Invitation[]>(keys.invitations(projectId), (list) => [...(list ?? []).filter((item) => item.id !== invited.id), invited]);
      announce(t('members.invite.sent', { email: invited.email }));
    } else onInvited(invited);
    setEmail('');
  };
  return (
    <form class="card inline-form" onSubmit={submit} aria-label={t('members.invite.form')}>
      <label class="grow">
        {t('common.email')}
        <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />
      </label>
      <label>
        {t('common.role')}
        <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          <EnumOptions labels={roleLabels()} />
        </select>
      </label>
      <button type="submit" class="primary" disabled={busy}>
        {t('members.invite.submit')}
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

function MemberRow(props: { member: Member; project: Project; admin: boolean; onChanged: (member: Member) => void; onRemoved: () => void }) {
  const { member, project, admin, onChanged } = props;
  const me = useCurrentUser();
  const { route } = useLocation();
  const { error, run, busy } = useAction();
  const [confirming, setConfirming] = useState(false);
  const isOwner = member.userId === project.ownerId;
  const isMe = member.userId === me.id;
  // Admins remove anyone but the owner; anyone but the owner may leave.
  const removable = !isOwner && (admin || isMe);
  const remove = async () => {
    if (!(await run(() => client.members.remove({ id: project.id, memberId: member.id })))) return;
    if (isMe) route('/');
    else props.onRemoved();
  };
  const changeRole = async (role: Role) => {
    const updated = await run(() => client.members.setRole({ id: project.id, memberId: member.id, role }));
    if (updated) onChanged(updated);
  };
  return (
    <tr data-member-id={member.id}>
      <td>{member.name}</td>
      <td>{member.email}</td>
      <td>
        <div class="row">
          {admin && !isOwner ? (
            <label>
              <span class="visually-hidden">{t('members.roleOf', { name: member.name })}</span>
              <select value={member.role} disabled={busy} onChange={(e) => changeRole(e.currentTarget.value as Role)}>
                <EnumOptions labels={roleLabels()} />
              </select>
            </label>
          ) : (
            <span>{isOwner ? t('members.owner') : roleLabel(member.role)}</span>
          )}
          {removable && (
            <ConfirmButton
              label={isMe ? t('members.leave.label') : t('common.remove')}
              question={isMe ? t('members.leave.question') : t('members.remove.question', { name: member.name })}
              confirmLabel={isMe ? t('members.leave.confirm') : t('members.remove.confirm')}
              onConfirm={remove}
              busy={busy}
              open={confirming}
              setOpen={setConfirming}
            />
          )}
          <ErrorNote error={error} />
        </div>
      </td>
    </tr>
  );
}
