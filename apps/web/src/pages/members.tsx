import type { Member, Project, Role } from '@tasklane/schemas';
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { useCurrentUser } from '../current-user';
import { keys, loadMembers } from '../data';
import { canAdminister, ROLE_LABELS } from '../format';
import { useAction, useQuery } from '../hooks';
import { client } from '../session';
import { ConfirmButton, EnumOptions, ErrorNote, Loading, Page } from '../ui';

export function MembersPage({ params }: { params: { projectId: string } }) {
  const { projectId } = params;
  const project = useQuery(keys.project(projectId), () => client.projects.get({ id: projectId }));
  const members = useQuery(keys.members(projectId), () => loadMembers(projectId));

  if (project.error) return <Page title="Members"><ErrorNote error={project.error} /></Page>;
  if (!project.data) return <Loading what="the project" />;
  const admin = canAdminister(project.data.role);
  const replace = (changed: Member) => members.setData((list) => list?.map((member) => (member.id === changed.id ? changed : member)));

  return (
    <Page
      title={`${project.data.name}: members`}
      actions={
        <nav aria-label="Project">
          <a href={`/projects/${projectId}`}>Board</a>
        </nav>
      }
    >
      {admin ? (
        <Invite projectId={projectId} onInvited={(member) => members.setData((list) => [...(list ?? []), member])} />
      ) : (
        <p class="muted">Only admins can invite members and change roles. Your role: {ROLE_LABELS[project.data.role]}.</p>
      )}
      <ErrorNote error={members.error} />
      <table class="members">
        <caption class="visually-hidden">Members of {project.data.name}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
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
    </Page>
  );
}

function Invite({ projectId, onInvited }: { projectId: string; onInvited: (member: Member) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('VIEWER');
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const member = await run(() => client.members.invite({ id: projectId, email, role }));
    if (!member) return;
    onInvited(member);
    setEmail('');
  };
  return (
    <form class="card inline-form" onSubmit={submit} aria-label="Invite a member">
      <label class="grow">
        Email
        <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />
      </label>
      <label>
        Role
        <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          <EnumOptions labels={ROLE_LABELS} />
        </select>
      </label>
      <button type="submit" class="primary" disabled={busy}>
        Invite
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
        {admin && !isOwner ? (
          <label>
            <span class="visually-hidden">Role of {member.name}</span>
            <select value={member.role} disabled={busy} onChange={(e) => changeRole(e.currentTarget.value as Role)}>
              <EnumOptions labels={ROLE_LABELS} />
            </select>
          </label>
        ) : (
          <span>{isOwner ? 'Owner' : ROLE_LABELS[member.role]}</span>
        )}
        {removable && (
          <ConfirmButton
            label={isMe ? 'Leave' : 'Remove'}
            question={isMe ? 'Leave this project?' : `Remove ${member.name}? Their tasks become unassigned.`}
            confirmLabel={isMe ? 'Leave project' : 'Remove member'}
            onConfirm={remove}
            busy={busy}
            open={confirming}
            setOpen={setConfirming}
          />
        )}
        <ErrorNote error={error} />
      </td>
    </tr>
  );
}
