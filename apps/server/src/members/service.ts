import type { Db } from '@tasklane/db';
import type { ChangeRoleInput, InviteMemberInput, Member } from '@tasklane/schemas';
import { requireProjectAccess } from '../access';
import { changedFields, recordActivity } from '../activity/service';
import { findUserByEmail } from '../auth/store';
import { isUniqueViolation } from '../lib/db-errors';
import { isId, newId } from '../lib/ids';
import { authorize } from '../policy';
import { findProject } from '../projects/store';
import { ApiError, notFound } from '../trpc/errors';
import * as store from './store';

const toMember = (row: store.MemberRow): Member => ({ ...row });

const alreadyMember = () => new ApiError('CONFLICT', 'This user is already a member of the project', 'ALREADY_MEMBER');

export function createMembersService(db: Db) {
  return {
    async invite(userId: string, { id: projectId, email, role = 'VIEWER' }: InviteMemberInput): Promise<Member> {
      authorize(await requireProjectAccess(db, projectId, userId), 'members.manage');
      const invitee = await findUserByEmail(db, email);
      if (!invitee) throw new ApiError('NOT_FOUND', 'No registered user has this email', 'USER_NOT_FOUND');
      if (await store.isMember(db, projectId, invitee.id)) throw alreadyMember();
      try {
        return await db.transaction(async (tx) => {
          const row = await store.insertMember(tx, { id: newId(), projectId, userId: invitee.id, role });
          const member = toMember({ ...row, name: invitee.name, email: invitee.email });
          await recordActivity(tx, { projectId, actorId: userId, type: 'member.added', resource: member });
          return member;
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw alreadyMember();
        throw error;
      }
    },

    async changeRole(userId: string, { id: projectId, memberId, role }: ChangeRoleInput): Promise<Member> {
      authorize(await requireProjectAccess(db, projectId, userId), 'members.manage');
      const member = isId(memberId) ? await store.findMember(db, projectId, memberId) : undefined;
      if (!member) throw notFound('Member');
      const project = await findProject(db, projectId);
      if (project?.ownerId === member.userId) {
        throw new ApiError('CONFLICT', "The owner's membership cannot be changed", 'OWNER_IMMUTABLE');
      }
      const updated = toMember({ ...member, role });
      await db.transaction(async (tx) => {
        await store.updateRole(tx, memberId, role);
        const changes = changedFields(toMember(member), updated, ['role']);
        if (changes) await recordActivity(tx, { projectId, actorId: userId, type: 'member.updated', resource: updated, changes });
      });
      return updated;
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
