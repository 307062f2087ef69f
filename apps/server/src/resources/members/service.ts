import type { Db } from '@tasklane/db';
import type {
  AcceptInvitationInput,
  AcceptedInvitation,
  ChangeRoleInput,
  Invitation,
  InvitationPathInput,
  InviteMemberInput,
  ListInvitationsInput,
  ListMembersInput,
  Member,
  MemberPathInput,
} from '@tasklane/schemas';
import type { MailOutbox } from '../../platform/mail/outbox';
import { digestOf } from '../access-tokens/service';
import { lockScope } from '../../events/scope';
import * as invitationsStore from './invitations-store';
import { INVITATION_MAIL, INVITE_PATH_PREFIX, type InvitationMailData, type InvitationTokens, TOKEN_PATTERN } from './invitation-mail';
import { findProjectOwner, isMember, requireProjectAccess } from '../policy/access';
import { findUserByEmail } from '../auth/service';
import { isUniqueViolation } from '../../platform/db-errors';
import { isId, newId } from '../../platform/ids';
import { requireVersion, type Versioned } from '../../platform/versions';
import { decodeIdCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { authorize } from '../policy/policy';
import { recordEvent } from '../../events/record';
import { changedFields } from '../../events/changes';
import { transactionIn } from '../../events/scope';
import { clearUserFieldValuesOf, unassignTasksOf } from '../tasks/service';
import { DomainError, notFound } from '../../platform/errors';
import * as store from './store';

const toMember = ({ id, userId, projectId, role, name, email }: Omit<store.MemberRow, 'membershipUpdatedAt' | 'userUpdatedAt'>): Member => ({ id, userId, projectId, role, name, email });

/**
 * A member's version, its ETag. Its answer joins two rows, the membership (role) and the user
 * (name, email), so the version must move when either does: it is the sum of both rows'
 * `updatedAt`. Every write of either row moves that row's `updatedAt` strictly forward
 * (`nextVersion`), so the sum strictly grows on any change and never repeats. The later of the
 * two would not do: a write whose time falls below the other row's (a transaction's `now()` is
 * its start) would leave it, and so the ETag, unchanged. The sum is a version, not a time.
 */
const memberVersion = (row: Pick<store.MemberRow, 'membershipUpdatedAt' | 'userUpdatedAt'>): Date =>
  new Date(row.membershipUpdatedAt.getTime() + row.userUpdatedAt.getTime());

const versioned = (row: store.MemberRow): Versioned<Member> => ({ resource: toMember(row), version: memberVersion(row) });

/** The member's row, locked for the write in `tx`: 404 when gone, 412 when `If-Match` (`versions`) names no current version. */
async function lockCurrent(tx: Db, projectId: string, memberId: string, versions: Date[] | undefined): Promise<store.MemberRow> {
  const row = isId(memberId) ? await store.findMember(tx, projectId, memberId, { forUpdate: true }) : undefined;
  return requireVersion(row && { ...row, updatedAt: memberVersion(row) }, versions, 'Member');
}

const toInvitation = ({ id, email, role, projectId, expiresAt, createdAt }: invitationsStore.InvitationRow): Invitation => ({
  id,
  email,
  role,
  projectId,
  status: 'pending',
  expiresAt: expiresAt.toISOString(),
  createdAt: createdAt.toISOString(),
});

/** One answer for every link that does not work (unknown, used, revoked, expired): which of them it is tells nobody anything useful. */
const invitationInvalid = () =>
  new DomainError('NOT_FOUND', 'This invitation link is invalid, expired, revoked or already used: ask for a new one', 'INVITATION_INVALID');

const alreadyMember = () => new DomainError('CONFLICT', 'This user is already a member of the project', 'ALREADY_MEMBER');
const ownerImmutable = (message: string) => new DomainError('CONFLICT', message, 'OWNER_IMMUTABLE');

/** What invitations of people without an account need: the mail outbox, the links' address and tokens. */
export interface InvitationOptions {
  mail: MailOutbox;
  publicUrl: string;
  tokens: InvitationTokens;
}

export function createMembersService(db: Db, invitations: InvitationOptions) {
  const base = invitations.publicUrl.replace(/\/+$/, '');

  /**
   * Invites an email no account has: a new invitation, or the renewal of the pending (or expired)
   * one of the same email (same id, new token and expiry, the new role: the earlier link stops
   * working). With email the link is mailed in the same transaction; without, the answer carries it.
   */
  async function inviteByEmail(userId: string, projectId: string, email: string, role: Member['role']): Promise<Versioned<Invitation>> {
    // A renewal keeps the row's own id (the upsert returns it).
    const id = newId();
    return transactionIn(db, { projectId }, 'Project', async (tx) => {
      const issued = invitations.tokens.issue();
      const row = await invitationsStore.upsertInvitation(tx, { id, projectId, email, role, tokenDigest: digestOf(issued.token) });
      const invitation = toInvitation(row);
      if (invitations.mail.enabled) {
        const inviter = await invitationsStore.inviterOf(tx, userId);
        const data: InvitationMailData = {
          invitationId: row.id,
          nonce: issued.nonce,
          projectName: (await invitationsStore.nameOfProject(tx, projectId)) ?? '',
          inviterName: inviter?.name ?? '',
          role,
          locale: inviter?.locale ?? null,
        };
        await invitations.mail.enqueue(tx, { kind: INVITATION_MAIL, to: email, data: data as unknown as Record<string, unknown> });
      }
      await recordEvent(tx, { projectId, actorId: userId, type: 'invitation.created', resource: invitation });
      return {
        resource: invitations.mail.enabled ? invitation : { ...invitation, acceptUrl: `${base}${INVITE_PATH_PREFIX}${issued.token}` },
        version: row.updatedAt,
      };
    });
  }


  async function requireMember(projectId: string, memberId: string): Promise<store.MemberRow> {
    const member = isId(memberId) ? await store.findMember(db, projectId, memberId) : undefined;
    if (!member) throw notFound('Member');
    return member;
  }

  return {
    async list(userId: string, { id: projectId, ...query }: ListMembersInput): Promise<Page<Member>> {
      await requireProjectAccess(db, projectId, userId);
      const limit = pageSize(query.limit);
      const rows = await store.listMembers(db, projectId, decodeIdCursor(query.cursor), limit + 1);
      return toPage(rows, limit, toMember, (row) => [row.id]);
    },

    async get(userId: string, { id: projectId, memberId }: MemberPathInput): Promise<Versioned<Member>> {
      authorize(await requireProjectAccess(db, projectId, userId), 'project.read');
      return versioned(await requireMember(projectId, memberId));
    },

    /** A registered user's email adds them at once; any other email gets an invitation (inviteByEmail). */
    async invite(userId: string, { id: projectId, email, role = 'VIEWER' }: InviteMemberInput): Promise<Versioned<Member | Invitation>> {
      authorize(await requireProjectAccess(db, projectId, userId), 'members.manage');
      const invitee = await findUserByEmail(db, email);
      if (!invitee) return inviteByEmail(userId, projectId, email, role);
      if (await isMember(db, projectId, invitee.id)) throw alreadyMember();
      try {
        return await transactionIn(db, { projectId }, 'Project', async (tx) => {
          const row = await store.insertMember(tx, { id: newId(), projectId, userId: invitee.id, role });
          // Read back through the join: the version is made of the user's row as well.
          const member = versioned((await store.findMember(tx, projectId, row.id))!);
          await recordEvent(tx, { projectId, actorId: userId, type: 'member.added', resource: member.resource });
          return member;
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw alreadyMember();
        throw error;
      }
    },

    /** The project's pending invitations, oldest first. ADMIN or owner: they show emails of people who are not members. */
    async listInvitations(userId: string, { id: projectId, ...query }: ListInvitationsInput): Promise<Page<Invitation>> {
      authorize(await requireProjectAccess(db, projectId, userId), 'members.manage');
      const limit = pageSize(query.limit);
      const rows = await invitationsStore.listPending(db, projectId, decodeIdCursor(query.cursor), limit + 1);
      return toPage(rows, limit, toInvitation, (row) => [row.id]);
    },

    /** Revokes an invitation (pending or expired): its link stops working. */
    async deleteInvitation(userId: string, { id: projectId, invitationId }: InvitationPathInput): Promise<{ message: string }> {
      authorize(await requireProjectAccess(db, projectId, userId), 'members.manage');
      await transactionIn(db, { projectId }, 'Project', async (tx) => {
        const row = isId(invitationId) ? await invitationsStore.findInvitation(tx, projectId, invitationId) : undefined;
        if (!row || !(await invitationsStore.deleteInvitation(tx, row.id))) throw notFound('Invitation');
        await recordEvent(tx, { projectId, actorId: userId, type: 'invitation.deleted', resource: toInvitation(row) });
      });
      return { message: 'Invitation revoked' };
    },

    /**
     * Any signed-in user holding the link joins with the invitation's role, whatever their account's
     * email (the link is the proof, as the issue has it: whoever registers or signs in through it
     * joins); the invitation then goes, so the link works once. A caller who already is a member
     * keeps their role and the invitation stays pending (it was meant for someone else).
     */
    async acceptInvitation(userId: string, { token }: AcceptInvitationInput): Promise<AcceptedInvitation> {
      if (!TOKEN_PATTERN.test(token)) throw invitationInvalid();
      const tokenDigest = digestOf(token);
      const found = await invitationsStore.findUsable(db, tokenDigest);
      if (!found) throw invitationInvalid();
      const { projectId } = found.invitation;
      try {
        return await db.transaction(async (tx) => {
          // The project first (the lock order of platform/locks.ts), then the invitation, so two accepts of one link join once.
          if (!(await lockScope(tx, { projectId }))) throw invitationInvalid();
          const invitation = await invitationsStore.lockUsable(tx, tokenDigest);
          if (!invitation) throw invitationInvalid();
          const existing = await store.findMemberOfUser(tx, projectId, userId);
          if (existing) return { member: toMember(existing), joined: false };
          const row = await store.insertMember(tx, { id: newId(), projectId, userId, role: invitation.role });
          const member = toMember((await store.findMember(tx, projectId, row.id))!);
          await invitationsStore.deleteInvitation(tx, invitation.id);
          await recordEvent(tx, { projectId, actorId: userId, type: 'invitation.accepted', resource: toInvitation(invitation) });
          await recordEvent(tx, { projectId, actorId: userId, type: 'member.added', resource: member });
          return { member, joined: true };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw alreadyMember();
        throw error;
      }
    },

    /** `versions`: what If-Match accepts (undefined: any). */
    async changeRole(userId: string, { id: projectId, memberId, role }: ChangeRoleInput, versions?: Date[]): Promise<Versioned<Member>> {
      authorize(await requireProjectAccess(db, projectId, userId), 'members.manage');
      return transactionIn(db, { projectId }, 'Member', async (tx) => {
        const member = await lockCurrent(tx, projectId, memberId, versions);
        if ((await findProjectOwner(tx, projectId)) === member.userId) throw ownerImmutable("The owner's membership cannot be changed");
        const updated = toMember({ ...member, role });
        const membershipUpdatedAt = await store.updateRole(tx, memberId, role);
        if (!membershipUpdatedAt) throw notFound('Member');
        const changes = changedFields(toMember(member), updated, ['role']);
        if (changes) await recordEvent(tx, { projectId, actorId: userId, type: 'member.updated', resource: updated, changes });
        return { resource: updated, version: memberVersion({ ...member, membershipUpdatedAt }) };
      });
    },

    /**
     * ADMIN and owner remove anyone but the owner; every member may remove themselves (leave).
     * The membership goes, the member's tasks in the project are unassigned and the user field values
   * naming them cleared, in one transaction.
     */
    async remove(userId: string, { id: projectId, memberId }: MemberPathInput, versions?: Date[]): Promise<{ message: string }> {
      const access = await requireProjectAccess(db, projectId, userId);
      const member = await requireMember(projectId, memberId);
      const leaving = member.userId === userId;
      authorize(access, leaving ? 'members.leave' : 'members.manage');
      await db.transaction(async (tx) => {
        // Locked so an ownership transfer cannot make this member the owner meanwhile.
        const ownerId = await findProjectOwner(tx, projectId, { lock: true });
        if (!ownerId) throw notFound('Project');
        if (ownerId === member.userId) {
          throw ownerImmutable(leaving ? 'The owner cannot leave the project: transfer ownership first' : "The owner's membership cannot be removed");
        }
        await lockCurrent(tx, projectId, member.id, versions);
        await store.deleteMember(tx, member.id);
        await recordEvent(tx, { projectId, actorId: userId, type: 'member.removed', resource: toMember(member) });
        await unassignTasksOf(tx, projectId, member.userId, userId);
        await clearUserFieldValuesOf(tx, projectId, member.userId, userId);
      });
      return { message: leaving ? 'You left the project' : 'Member removed' };
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;

/** For the projects service, in its transaction: a project's creator, and the owner it is transferred to, are ADMIN members. */
export const addOwnerMembership = (tx: Db, projectId: string, userId: string) => store.insertMember(tx, { id: newId(), projectId, userId, role: 'ADMIN' });
export const makeOwnerAdmin = (tx: Db, projectId: string, userId: string) => store.setRoleOfUser(tx, projectId, userId, 'ADMIN');
