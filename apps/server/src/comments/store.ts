import { comments, type Db } from '@tasklane/db';

export type CommentRow = typeof comments.$inferSelect;

export const insertComment = async (db: Db, comment: typeof comments.$inferInsert) =>
  (await db.insert(comments).values(comment).returning())[0]!;
