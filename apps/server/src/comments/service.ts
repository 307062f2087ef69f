import type { Db } from '@tasklane/db';
import type { Comment, CreateCommentInput } from '@tasklane/schemas';
import { recordActivity } from '../activity/service';
import { newId } from '../lib/ids';
import { authorize } from '../policy';
import type { TasksService } from '../tasks/service';
import * as store from './store';

export const toComment = (row: store.CommentRow): Comment => ({
  id: row.id,
  text: row.text,
  authorId: row.authorId,
  taskId: row.taskId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export function createCommentsService(db: Db, tasks: TasksService) {
  return {
    async create(userId: string, { id: taskId, text }: CreateCommentInput): Promise<Comment> {
      const { access } = await tasks.loadTask(userId, taskId);
      authorize(access, 'comment.create');
      return db.transaction(async (tx) => {
        const comment = toComment(await store.insertComment(tx, { id: newId(), taskId, authorId: userId, text }));
        await recordActivity(tx, { projectId: access.projectId, taskId, actorId: userId, type: 'comment.created', resource: comment });
        return comment;
      });
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
