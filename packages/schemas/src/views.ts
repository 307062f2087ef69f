import { z } from 'zod';
import { IdSchema, PageQueryShape, PathIdSchema, TimestampSchema, trimmed } from './common';
import { TaskFilterShape, withFieldFilters } from './tasks';

/** How a saved view draws its tasks: the web app's four pictures of a project. */
export const VIEW_LAYOUTS = ['board', 'list', 'calendar', 'timeline'] as const;
export const VIEW_NAME_MAX = 100;

const pathIds = { id: PathIdSchema, viewId: PathIdSchema };

// A view's filters are exactly the task list's filter parameters (GET /tasks/project/{projectId}),
// checked by the same schemas, without the page (limit, cursor) and the sort, which a view keeps
// beside them. Custom field filters (`field.<id>`…) are checked against the project's fields.
const { sort: SortSchema, limit: _limit, cursor: _cursor, ...filterShape } = TaskFilterShape;

export const ViewFiltersSchema = withFieldFilters(filterShape).meta({
  id: 'ViewFilters',
  description:
    'The task list\'s filter parameters (GET /tasks/project/{projectId}) as a JSON object: `status`, `statusCategory`, `priority` and `labelId` as arrays, the others as strings, and `field.<fieldId>` (`.gte`, `.lte`) filters; each checked as the list checks it (400 naming `filters.<key>`)',
  example: { status: ['TODO', 'IN_PROGRESS'], assigneeId: 'me' },
});

const ViewNameSchema = trimmed(1, VIEW_NAME_MAX).meta({ description: `1–${VIEW_NAME_MAX} characters`, example: 'My open bugs' });
const LayoutSchema = z.enum(VIEW_LAYOUTS).meta({ id: 'ViewLayout', description: 'How the web app draws the view', example: 'board' });
const ViewSortSchema = SortSchema.unwrap().nullable().meta({ description: "The task list's `sort` parameter, or null for the list's default order" });
const SharedSchema = z.boolean().meta({ description: 'Seen by every member of the project (EDITOR and up make a view shared); otherwise only by its owner' });

export const ViewSchema = z
  .object({
    id: IdSchema,
    projectId: IdSchema,
    name: z.string(),
    layout: LayoutSchema,
    filters: z.record(z.string(), z.unknown()).meta({ description: 'The task list\'s filter parameters (see ViewFilters)', example: { status: ['TODO'], assigneeId: 'me' } }),
    sort: z.string().nullable().meta({ description: "The task list's `sort` parameter, or null", example: '-dueDate' }),
    shared: z.boolean(),
    ownerId: IdSchema.meta({ description: 'The member who made the view' }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'View' });

export const CreateViewInput = z
  .object({
    id: PathIdSchema,
    name: ViewNameSchema,
    layout: LayoutSchema,
    filters: ViewFiltersSchema.optional(),
    sort: ViewSortSchema.optional(),
    shared: SharedSchema.optional().meta({ description: 'Default false: a personal view' }),
  })
  .strict()
  .meta({ examples: [{ name: 'My open bugs', layout: 'list', filters: { statusCategory: ['unstarted', 'started'], assigneeId: 'me' }, sort: '-priority', shared: false }] });

export const UpdateViewInput = z
  .object({
    ...pathIds,
    name: ViewNameSchema.optional(),
    layout: LayoutSchema.optional(),
    filters: ViewFiltersSchema.optional(),
    sort: ViewSortSchema.optional(),
    shared: SharedSchema.optional(),
  })
  .strict()
  .meta({ examples: [{ name: 'Due this week', shared: true }] });

export const ViewPathInput = z.object(pathIds).strict();
export const ListViewsInput = z.object({ id: PathIdSchema, ...PageQueryShape }).strict();

export type View = z.infer<typeof ViewSchema>;
export type ViewLayout = (typeof VIEW_LAYOUTS)[number];
export type ViewFilters = z.infer<typeof ViewFiltersSchema>;
export type CreateViewInput = z.infer<typeof CreateViewInput>;
export type UpdateViewInput = z.infer<typeof UpdateViewInput>;
export type ViewPathInput = z.infer<typeof ViewPathInput>;
export type ListViewsInput = z.infer<typeof ListViewsInput>;
