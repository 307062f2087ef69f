import { accessTokensRouter } from '../access-tokens/router';
import { activityRouter } from '../activity/router';
import { authRouter } from '../auth/router';
import { commentsRouter } from '../comments/router';
import { labelsRouter } from '../labels/router';
import { membersRouter } from '../members/router';
import { notificationSettingsRouter } from '../notification-email/router';
import { notificationsRouter, watchingRouter } from '../notifications/router';
import { projectsRouter } from '../projects/router';
import { tasksRouter } from '../tasks/router';
import { webhooksRouter } from '../webhooks/router';
import { ssoRouter } from '../sso/router';
import { mergeRouters, router } from './init';

export const appRouter = router({
  auth: mergeRouters(authRouter, router({ tokens: accessTokensRouter, oidc: ssoRouter, notificationSettings: notificationSettingsRouter })),
  projects: projectsRouter,
  members: membersRouter,
  tasks: tasksRouter,
  comments: commentsRouter,
  labels: labelsRouter,
  activity: activityRouter,
  webhooks: webhooksRouter,
  notifications: notificationsRouter,
  watching: watchingRouter,
});

export type AppRouter = typeof appRouter;
