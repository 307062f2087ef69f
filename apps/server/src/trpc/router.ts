import { activityRouter } from '../activity/router';
import { authRouter } from '../auth/router';
import { commentsRouter } from '../comments/router';
import { membersRouter } from '../members/router';
import { projectsRouter } from '../projects/router';
import { tasksRouter } from '../tasks/router';
import { webhooksRouter } from '../webhooks/router';
import { router } from './init';

export const appRouter = router({
  auth: authRouter,
  projects: projectsRouter,
  members: membersRouter,
  tasks: tasksRouter,
  comments: commentsRouter,
  activity: activityRouter,
  webhooks: webhooksRouter,
});

export type AppRouter = typeof appRouter;
