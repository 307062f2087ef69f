import type { Db } from '@tasklane/db';
import type { Comment, CreateCommentInput } from '@tasklane/schemas';
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
      return toComment(await store.insertComment(db, { id: newId(), taskId, authorId: userId, text }));
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
