import { accessTokensRouter } from './routers/access-tokens';
import { activityRouter } from './routers/activity';
import { attachmentsRouter } from './routers/attachments';
import { authRouter } from './routers/auth';
import { calendarFeedRouter } from './routers/calendar-feed';
import { commentsRouter } from './routers/comments';
import { importsRouter } from './routers/imports';
import { labelsRouter } from './routers/labels';
import { membersRouter } from './routers/members';
import { notificationSettingsRouter } from './routers/notification-email';
import { notificationsRouter, watchingRouter } from './routers/notifications';
import { projectsRouter } from './routers/projects';
import { statesRouter } from './routers/states';
import { fieldsRouter } from './routers/fields';
import { relationsRouter } from './routers/relations';
import { searchRouter } from './routers/search';
import { tasksRouter } from './routers/tasks';
import { viewsRouter } from './routers/views';
import { webhooksRouter } from './routers/webhooks';
import { ssoRouter } from './routers/sso';
import { mergeRouters, router } from './init';
import type { ProcedurePathOf } from './procedure-paths';
import { timeTrackingRouter } from './routers/time-tracking';

export const appRouter = router({
  auth: mergeRouters(authRouter, router({ tokens: accessTokensRouter, oidc: ssoRouter, notificationSettings: notificationSettingsRouter, calendarFeed: calendarFeedRouter })),
  projects: projectsRouter,
  members: membersRouter,
  tasks: tasksRouter,
  comments: commentsRouter,
  labels: labelsRouter,
  views: viewsRouter,
  states: statesRouter,
  fields: fieldsRouter,
  relations: relationsRouter,
  attachments: attachmentsRouter,
  activity: activityRouter,
  webhooks: webhooksRouter,
  notifications: notificationsRouter,
  watching: watchingRouter,
  time: timeTrackingRouter,
  search: searchRouter,
  imports: importsRouter,
});

export type AppRouter = typeof appRouter;

/** Every procedure's dotted path, as tRPC calls it (`auth.tokens.list`): what the scopes table is keyed by. */
export type AppProcedurePath = ProcedurePathOf<AppRouter>;
