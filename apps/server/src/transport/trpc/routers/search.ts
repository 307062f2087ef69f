import { SearchHitSchema, SearchInput } from '@tasklane/schemas';
import { router } from '../init';
import { pagedList } from '../paged-list';

export const searchRouter = router({
  ...pagedList('query', {
    meta: {
      openapi: {
        method: 'GET',
        path: '/search',
        tags: ['search'],
        summary: 'Search tasks and comments',
        description:
          'Full-text search over the tasks (key, title, description) and comments of every project the caller is a member of, best matches first (`rank`), paged by cursor. ' +
          '`q` takes web-search syntax: words that must all occur, `"a quoted phrase"`, `or`, `-word` to exclude; the last bare word also matches as a prefix, and a task key (`ENG-42`) finds that task first. ' +
          'Words are matched as written, in any case, without stemming. `snippet` is HTML: the excerpt escaped, the matched words in `<mark>`.',
      },
    },
    input: SearchInput,
    item: SearchHitSchema,
    list: (ctx, input) => ctx.services.search.query(ctx.userId, input),
  }),
});
